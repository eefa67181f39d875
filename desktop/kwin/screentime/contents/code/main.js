// screentime for KWin (Plasma 5.27 and 6): tells `stctl hook kde` which window is active.
//
// The hook loads this file through org.kde.KWin /Scripting (loadScript, then start) and unloads
// it when it stops. The script reports what KWin sees and decides nothing: for the window active
// at start, at every activation, and at every caption change of the active window, it calls on
// the session bus (service and path of the hook, which only believes calls from KWin)
//     org.screentime.KWinHook.Focus(i pid, s resourceClass, s caption)
// and, when no window is active,
//     org.screentime.KWinHook.Unfocused()
// Input and idle do not come from here: the hook asks KWin's idle notifications for them.

const SERVICE = "org.screentime.KWinHook";
const PATH = "/org/screentime/KWinHook";
const INTERFACE = "org.screentime.KWinHook";

// One source for both: Plasma 6 says "window" where Plasma 5 said "client".
const activated = workspace.windowActivated !== undefined ? workspace.windowActivated : workspace.clientActivated;
function activeWindow() {
    return workspace.activeWindow !== undefined ? workspace.activeWindow : workspace.activeClient;
}

function text(value) {
    return value === undefined || value === null ? "" : String(value);
}

function report(window) {
    if (window) {
        callDBus(SERVICE, PATH, INTERFACE, "Focus", window.pid, text(window.resourceClass), text(window.caption));
    } else {
        callDBus(SERVICE, PATH, INTERFACE, "Unfocused");
    }
}

// The active window, whose caption changes are followed.
let watched = null;

function onCaption() {
    report(watched);
}

function follow(window) {
    if (watched) {
        // The old window may be gone already: then there is nothing to disconnect.
        try { watched.captionChanged.disconnect(onCaption); } catch (e) {}
    }
    watched = window;
    if (window) {
        window.captionChanged.connect(onCaption);
    }
}

activated.connect(function (window) {
    follow(window);
    report(window);
});

follow(activeWindow());
report(activeWindow());
