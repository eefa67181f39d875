// screentime for GNOME Shell 43–44 (legacy imports). Everything is in core.js; this only hands it
// what it needs from the shell.
'use strict';

const {GLib, Gio, St, Clutter, Meta} = imports.gi;
const Gettext = imports.gettext;
const Main = imports.ui.main;
const PanelMenu = imports.ui.panelMenu;
const PopupMenu = imports.ui.popupMenu;
const MessageTray = imports.ui.messageTray;
const ExtensionUtils = imports.misc.extensionUtils;
const Me = ExtensionUtils.getCurrentExtension();

function init() {
    // The extension's words: its own gettext domain (metadata.json's gettext-domain), read from
    // the catalogs in its locale/ folder, in the language of the session (LANGUAGE, LC_ALL,
    // LC_MESSAGES, LANG).
    ExtensionUtils.initTranslations();
    const {gettext, ngettext} = Gettext.domain(Me.metadata['gettext-domain']);
    return Me.imports.core.createScreenTime({GLib, Gio, St, Clutter, Meta, Main, PanelMenu, PopupMenu, MessageTray, gettext, ngettext});
}
