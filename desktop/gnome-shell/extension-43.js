// screentime for GNOME Shell 43–44 (legacy imports). Everything is in core.js; this only hands it
// what it needs from the shell.
'use strict';

const {GLib, Gio, St, Clutter, Meta} = imports.gi;
const Main = imports.ui.main;
const PanelMenu = imports.ui.panelMenu;
const PopupMenu = imports.ui.popupMenu;
const MessageTray = imports.ui.messageTray;
const Me = imports.misc.extensionUtils.getCurrentExtension();

function init() {
    return Me.imports.core.createScreenTime({GLib, Gio, St, Clutter, Meta, Main, PanelMenu, PopupMenu, MessageTray});
}
