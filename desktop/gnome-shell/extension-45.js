// screentime for GNOME Shell 45 and later (ES modules). Everything is in core.js; this only hands
// it what it needs from the shell.
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import St from 'gi://St';
import Clutter from 'gi://Clutter';
import Meta from 'gi://Meta';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as PanelMenu from 'resource:///org/gnome/shell/ui/panelMenu.js';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';
import * as MessageTray from 'resource:///org/gnome/shell/ui/messageTray.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import {createScreenTime} from './core.js';

export default class ScreenTimeExtension extends Extension {
    enable() {
        // The extension's words: its own gettext domain (metadata.json's gettext-domain), read
        // from the catalogs in its locale/ folder, in the language of the session.
        this.initTranslations();
        const gettext = text => this.gettext(text);
        const ngettext = (one, other, n) => this.ngettext(one, other, n);
        this._screentime = createScreenTime({GLib, Gio, St, Clutter, Meta, Main, PanelMenu, PopupMenu, MessageTray, gettext, ngettext});
        this._screentime.enable();
    }

    disable() {
        this._screentime.disable();
        this._screentime = null;
    }
}
