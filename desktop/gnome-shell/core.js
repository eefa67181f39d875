// screentime for GNOME Shell: the part shared by the GNOME 43–44 entry point (extension-43.js)
// and the GNOME 45+ one (extension-45.js). tools/pack-gnome-extension puts it beside the right
// entry point (for 45+ it appends one `export` line: nothing else differs).
//
// What it does, and only this:
// - tells screentimed what the shell sees, as `hook_event` requests on the daemon's control
//   socket (docs/protocol.md): the focused window (pid, app id, title, Flatpak id), input and
//   idle from Mutter's idle monitor, and the screen lock;
// - shows the child what screentimed says (`status`): screen time left (with a policy's
//   `[screen]`), game time left now and points in the top bar, and the daemon's notices (warnings
//   before games close or the screen time ends) as GNOME notifications when the daemon could not
//   show them itself (system mode), a warning with its "Ask for 15 more minutes" button;
// - lets the child, from the indicator's menu, do what `stctl` lets a child do: ask a parent for
//   more time (minutes and a reason typed there), say a chore is done, and redeem points where
//   the policy allows (`ask`, `chore_done`, `redeem`); the daemon's answer is a notification.
// It decides nothing: what counts, and what is refused, is the daemon's business. It offers no
// method that changes windows; its D-Bus object (/org/screentime/Indicator on the shell's own
// bus name) has read-only properties.
//
// Everything from GNOME Shell comes in through `deps` ({GLib, Gio, St, Clutter, Meta, Main,
// PanelMenu, PopupMenu, MessageTray, gettext, ngettext}), so that this file has no imports and is
// the same for both module systems.
//
// Its words are in the child's language (docs/translating.md): gettext's, in the extension's own
// domain, screentime-gnome-shell (metadata.json's gettext-domain; the catalogs are compiled into
// the extension's locale/ folder). Every word a person sees is a message, `_('…')` or
// `ngettext('…', '…', n)`, written in English; tools/messages extracts them into
// po/gnome-shell/screentime-gnome-shell.pot, and its check fails on a string with words in it
// that is neither a message nor marked `// not shown` on the line before.

// The translation functions: the entry point hands in those of the extension's domain
// (createScreenTime's deps); until then, English (as when gjs loads this file alone, in tests).
let _ = text => text;
let ngettext = (one, other, n) => (n === 1 ? one : other);
// A message whose translation is looked up later, with _(variable): extracted, nothing more.
const N_ = text => text;

// What varies in a message is named in braces, `{minutes}`, and filled in after translation, so
// that a translator can put it where their language wants it.
function fill(message, values) {
    return message.replace(/\{([a-z_]+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
}

// The daemon's socket: SCREENTIME_SOCKET, else the user daemon's, else the system daemon's.
// not shown
const SYSTEM_SOCKET = '/run/screentime/control.sock';
// Input is reported when it starts after a quiet second, and while it goes on, every 1.5 to 4.5 s
// drawn at random: the same rule as the other hooks (Sources/DesktopHooks/InputThrottle.swift),
// so that steady typing does not look like a jiggler's exact rhythm (`periodic_input`).
const QUIET_MS = 1000;
const KEEP_ALIVE_MS = [1500, 4500];
// How often the indicator asks for the status (and at once after a focus change).
const STATUS_EVERY_S = 5;
// Lines not yet written to a daemon that stopped reading: past this, the connection is dropped
// and made again (the focus is told again then), rather than growing without bound.
const MAX_QUEUED = 256;
const RETRY_S = 3;

// not shown
const INDICATOR_XML = `<node>
  <interface name="org.screentime.Indicator">
    <property name="Text" type="s" access="read"/>
    <property name="GameSecondsLeft" type="x" access="read"/>
    <property name="ScreenText" type="s" access="read"/>
    <property name="ScreenSecondsLeft" type="x" access="read"/>
    <property name="Details" type="s" access="read"/>
    <property name="Points" type="x" access="read"/>
    <property name="Connected" type="b" access="read"/>
    <property name="Watched" type="b" access="read"/>
  </interface>
</node>`;

// The minutes the menu offers to redeem (each shown with its price in points).
const REDEEM_MINUTES = [15, 30, 60];
// What the menu lets a child ask for at once (the daemon takes up to 100000; a day is enough).
const ASK_MAX_MINUTES = 1440;
// The most of a reason the daemon keeps (docs/protocol.md, `ask`).
const REASON_MAX = 300;
// The reason a warning's button gives (as the daemon's own button does). A parent reads it on the
// page, in the daemon's words: it is not the child's to translate.
// not shown
const BUTTON_REASON = "asked from a warning's button";

// A time in the words of the indicator: whole minutes, rounded down (never more than there is),
// seconds in the last minute. Short forms, as a clock's (no plural: "1 min", "2 min").
function durationWords(seconds) {
    if (seconds < 60)
        // TRANSLATORS: seconds, short, as on a clock or a timer ("40 s")
        return fill(_('{seconds} s'), {seconds: Math.max(0, seconds)});
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60)
        // TRANSLATORS: minutes, short ("20 min")
        return fill(_('{minutes} min'), {minutes});
    const hours = Math.floor(minutes / 60), rest = minutes % 60;
    // TRANSLATORS: hours and minutes, short ("1 h 5 min"), and whole hours ("2 h")
    return rest ? fill(_('{hours} h {minutes} min'), {hours, minutes: rest}) : fill(_('{hours} h'), {hours});
}

// Game time and screen time left, in the indicator's words.
function gameTimeWords(seconds) {
    return seconds <= 0 ? _('no game time') : durationWords(seconds);
}

function screenTimeWords(seconds) {
    return seconds <= 0 ? _('no screen time') : durationWords(seconds);
}

// "20:30" of an RFC 3339 time of the daemon's (its local time, as the policy's zone has it).
function clockWords(rfc3339) {
    return rfc3339.substring(11, 16);
}

// What the indicator shows of one `status` (docs/protocol.md), moved on by `passed` seconds since
// it came, as the daemon said the figures run on: game time down while a game counts
// (`reward_counting`), learning up while it counts (`learning_counting`), screen time left down
// and used up while screen time counts (`screen.counting`). Nothing else is worked out here.
// Returns the top bar's words (`text`: game time and points; `screenText`: screen time, '' when
// there is none to show), the menu's lines, and the seconds left (-1: no screen limit now).
function indicatorView(s, passed) {
    const down = (v, counting) => (counting ? Math.max(0, v - passed) : v);
    const now = down(s.reward_available_seconds, s.reward_counting);
    const today = down(s.reward_today_remaining_seconds, s.reward_counting);
    const learning = s.learning_today_seconds + (s.learning_counting ? passed : 0);
    const lines = [];
    let screenText = '', screenSecondsLeft = -1;
    const screen = s.screen;
    if (screen) {
        // The whole computer (docs/policy.md, [screen]): first, as it ends the session.
        const used = screen.used_today_seconds + (screen.counting ? passed : 0);
        if (screen.free_day) {
            // TRANSLATORS: the top bar, beside the screen's icon: today has no screen time limit
            screenText = _('free day');
            lines.push(_('Screen time: no limit today (a free day)'));
        } else if (typeof screen.left_seconds === 'number') {
            // Time to bedtime runs by the clock; time left of a limit only while it counts.
            screenSecondsLeft = down(screen.left_seconds, screen.counting || screen.limit === 'bedtime');
            const left = screenTimeWords(screenSecondsLeft);
            // TRANSLATORS: the top bar: screen time left, then the clock time of bedtime ("20 min (bedtime 20:30)")
            screenText = screen.limit === 'bedtime' && screen.bedtime ? fill(_('{left} (bedtime {time})'), {left, time: clockWords(screen.bedtime)}) : left;
            const line = {
                bedtime: N_('Screen time left until bedtime: {left}'),
                screen_weekly_limit: N_('Screen time left this week: {left}'),
            }[screen.limit] || N_('Screen time left today: {left}');
            lines.push(fill(_(line), {left}));
        } else {
            lines.push(_('Screen time: no limit now'));
        }
        const values = {used: durationWords(used), bonus: durationWords(screen.bonus_seconds || 0)};
        let line;
        if (typeof screen.daily_limit_seconds === 'number') {
            values.limit = durationWords(screen.daily_limit_seconds);
            line = screen.bonus_seconds > 0 ? _('Screen time used today: {used} of {limit}, and {bonus} more from a parent')
                : _('Screen time used today: {used} of {limit}');
        } else {
            line = screen.bonus_seconds > 0 ? _('Screen time used today: {used}, and {bonus} more from a parent') : _('Screen time used today: {used}');
        }
        lines.push(fill(line, values));
        if (screen.bedtime && !screen.free_day)
            lines.push(fill(_('Bedtime tonight: {time}'), {time: clockWords(screen.bedtime)}));
    }
    lines.push(
        fill(_('Game time now: {left}'), {left: gameTimeWords(now)}),
        fill(_('Game time left today: {left}'), {left: gameTimeWords(today)}),
        fill(_('Points: {balance} ({today} today)'), {balance: s.balance, today: s.points_today}),
        fill(_('Learning today: {time}'), {time: durationWords(learning)}));
    if (s.bonus_left_seconds)
        lines.push(fill(_('Bonus time today: {left}'), {left: gameTimeWords(s.bonus_left_seconds)}));
    if (s.games_stopped_until)
        lines.push(fill(_('Games are stopped until {time}'), {time: clockWords(s.games_stopped_until)}));
    if (s.current_app) {
        const app = s.current_site ? `${s.current_app} (${s.current_site})` : s.current_app;
        // TRANSLATORS: the program in front (as the policy names it), and how it counts
        lines.push(fill(_('{app}: {counts}'), {app, counts: countsWords(s)}));
    }
    for (const blind of s.blind_spots || [])
        lines.push(blind);
    // TRANSLATORS: the top bar: game time left now, and the points ("7 min · 12 pts")
    const text = fill(ngettext('{left} · {n} pt', '{left} · {n} pts', s.balance), {left: gameTimeWords(now), n: s.balance});
    return {text, gameSecondsLeft: now, screenText, screenSecondsLeft, lines};
}

// How the program in front counts, from its category and whether the policy trusts this copy
// of it (`current_category`, `current_trusted`), in the child's words; the daemon's English
// (`current_counts`) for a category not known here.
function countsWords(s) {
    switch (s.current_category) {
    case 'learning':
        return s.current_trusted === false
            ? _('learning, but not from a place the policy trusts: earns nothing')
            : _('learning: earns points while you use it');
    case 'reward': return _('a game: uses your game time');
    case 'neutral': return _('neither learning nor a game: not counted');
    case 'blocked': return _('blocked: it is closed');
    default: return s.current_counts || s.current_category || '';
    }
}

// What the child is told when a request went out but its answer never came.
function lostWords() {
    return {title: _('No answer came'), body: _('screentime stopped before it answered. Look at your time and points before you try again.')};
}

// The child's `ask` from the menu's fields (the minutes and the reason as typed; `screen`: screen
// time, else game time): `{request}`, or `{problem}` in a child's words when the minutes are not
// a whole number the menu takes or the reason is too long. Whether the ask is allowed (a parent's
// daily quota) is the daemon's to say.
function askRequest(minutesText, reasonText, screen) {
    const text = minutesText.trim();
    const minutes = /^[0-9]{1,5}$/.test(text) ? Number(text) : 0;
    if (minutes < 1 || minutes > ASK_MAX_MINUTES)
        return {problem: fill(_('Type how many minutes you want: a number from 1 to {most}.'), {most: ASK_MAX_MINUTES})};
    const reason = reasonText.trim();
    if ([...reason].length > REASON_MAX)
        return {problem: fill(_('Say why in fewer words: {most} letters at most.'), {most: REASON_MAX})};
    const request = {v: 1, command: 'ask', minutes};
    if (reason)
        request.reason = reason;
    if (screen)
        request.screen = true;
    return {request};
}

// The menu's chores from a `chores` reply: each `{label, chore}`, where `chore` is the name to
// claim (null: nothing to do now, the line only says where it stands). Chores not due today are
// left out; with none at all, one line says so.
function choreItems(chores) {
    const items = [];
    for (const c of chores || []) {
        // The chore's name is the parent's, as the policy writes it.
        const values = {chore: c.chore, n: c.points};
        if (c.state === 'open')
            items.push({label: fill(ngettext('{chore} ({n} point)', '{chore} ({n} points)', c.points), values), chore: c.chore});
        else if (c.state === 'rejected')
            items.push({label: fill(ngettext('{chore} ({n} point): try again', '{chore} ({n} points): try again', c.points), values), chore: c.chore});
        else if (c.state === 'pending')
            items.push({label: fill(_('{chore}: waiting for a parent'), values), chore: null});
        else if (c.state === 'approved')
            items.push({label: fill(ngettext('{chore}: done, {n} point', '{chore}: done, {n} points', c.points), values), chore: null});
    }
    if (!items.length)
        items.push({label: _('No chores to do today'), chore: null});
    return items;
}

// The menu's redemptions from a status: each `{label, minutes, enough}` (`enough`: the points pay
// for it now); none when the policy does not let the child redeem (`child_may_redeem`).
function redeemItems(s) {
    if (!s.child_may_redeem)
        return [];
    return REDEEM_MINUTES.map(minutes => {
        const cost = minutes * s.points_per_reward_minute;
        const label = fill(ngettext('{minutes} min of game time for {n} point', '{minutes} min of game time for {n} points', cost), {minutes, n: cost});
        return {label, minutes, enough: s.balance >= cost};
    });
}

// What the child is told of the daemon's answer to the menu's `ask`, `chore_done` or `redeem`
// (`reply` null: the daemon could not be asked): `{title, body}`.
function answerWords(command, reply) {
    if (!reply)
        return {title: _('screentime is not running'), body: _('Nothing was sent. Try again in a moment, or tell a parent.')};
    if (!reply.ok) {
        const title = {ask: N_('Not asked'), chore_done: N_('Chore not sent'), redeem: N_('Not redeemed')}[command] || N_('Not done');
        return {title: _(title), body: reasonWords(reply)};
    }
    if (command === 'ask') {
        const r = reply.request || {};
        const title = r.screen ? ngettext('You asked for {n} more minute of screen time', 'You asked for {n} more minutes of screen time', r.minutes)
            : ngettext('You asked for {n} more minute', 'You asked for {n} more minutes', r.minutes);
        return {title: fill(title, {n: r.minutes}), body: _('A parent will see it and answer; the answer comes here.')};
    }
    if (command === 'chore_done') {
        const c = (reply.chores || [])[0] || {};
        return {title: fill(_('You said you did {chore}'), {chore: c.chore}), body: _('A parent will check it; then the points are yours.')};
    }
    return {title: _('Game time redeemed'),
        body: fill(ngettext('It cost {n} point; you have {balance} left.', 'It cost {n} points; you have {balance} left.', reply.cost), {n: reply.cost, balance: reply.balance})};
}

// Why the daemon said no to the menu's ask, chore or redemption, from its code and figures
// (docs/protocol.md), in the child's words: the refusals a child meets there. "Not asked: …" names
// the reason it wraps (`because`): the title says the rest. Any other code: a plain sentence in
// the child's language (the daemon's `error` is English, for programs, and a child of eight may
// not read it); a reply with no code at all (a daemon older than codes): its `error`, all there is.
function reasonWords(reply) {
    const f = reply.figures || {};
    const number = name => Number(f[name]) || 0;
    switch (f.because || reply.code) {
    case 'insufficient_points':
        return fill(ngettext('It costs {cost} point, and you have {balance}.', 'It costs {cost} points, and you have {balance}.', number('cost')), f);
    case 'child_redeem_limit':
        return fill(_('You may redeem {most} min a day, and you redeemed {already} min today.'), f);
    case 'child_may_not_redeem':
    case 'for_parents':
        return _('Only your parents can redeem points here: ask them for the time instead.');
    case 'requests_per_day':
        return fill(ngettext('You may ask {most} time a day, and you asked {today} times today.', 'You may ask {most} times a day, and you asked {today} times today.', number('most')), f);
    case 'asked_enough_today':
        return _('You have asked very often today: that is all for today. Ask your parents, or try again tomorrow.');
    case 'screen_not_limited':
        return _('Your screen time has no limit on this computer: there is nothing to ask for.');
    case 'chore_unknown':
        return fill(_('There is no chore called {chore}.'), f);
    case 'chore_not_today':
        return fill(_('{chore} is not due today.'), f);
    case 'chore_waits':
        return fill(_('You already said {chore} is done: it waits for your parents.'), f);
    case 'chore_paid':
        return fill(_('{chore} is done and paid already.'), f);
    case 'reason_too_long':
        return fill(_('Your reason is too long: at most {most} letters, please.'), f);
    case 'request_exists':
        return _('You asked already: your parents will answer that first.');
    case 'ask_minutes':
        return _('Ask for at least 1 minute.');
    case 'beyond_today':
        return fill(_('Today leaves room for {room} more minutes of games: redeem fewer, or ask your parents.'), f);
    case 'family_out_of_reach':
    case 'family_no_answer':
    case 'family_failed':
        return _('The family\'s points could not be reached just now. Try again later.');
    case 'too_many_connections':
    case 'too_many_of_yours':
        return _('screentime is busy just now. Try again in a moment.');
    case 'not_saved':
        return _('This computer could not keep it just now. Tell a parent.');
    default: {
        if (!reply.code && reply.error) {
            const error = reply.error;
            return `${error.charAt(0).toUpperCase()}${error.slice(1)}${error.endsWith('.') ? '' : '.'}`;
        }
        return _('That did not work this time. Ask your parents.');
    }
    }
}

// One connection to the daemon: JSON lines out (queued, one write at a time), replies in order.
class DaemonLink {
    constructor(deps, onConnected) {
        this._d = deps;
        this._onConnected = onConnected;
        this._conn = null;
        this._queue = [];
        this._writing = false;
        this._replies = [];
        this._retryId = 0;
        this._cancel = new deps.Gio.Cancellable();
        this.connected = false;
    }

    socketPath() {
        const {GLib} = this._d;
        const own = GLib.getenv('SCREENTIME_SOCKET');
        if (own)
            return own;
        const user = GLib.build_filenamev([GLib.get_user_runtime_dir(), 'screentime', 'control.sock']);
        return GLib.file_test(user, GLib.FileTest.EXISTS) ? user : SYSTEM_SOCKET;
    }

    start() {
        const {Gio} = this._d;
        const address = new Gio.UnixSocketAddress({path: this.socketPath()});
        new Gio.SocketClient().connect_async(address, this._cancel, (client, result) => {
            try {
                this._conn = client.connect_finish(result);
            } catch (e) {
                this._retry();
                return;
            }
            this._input = new Gio.DataInputStream({base_stream: this._conn.get_input_stream()});
            this.connected = true;
            this._readLine();
            this._onConnected(true);
        });
    }

    stop() {
        this._cancel.cancel();
        if (this._retryId)
            this._d.GLib.source_remove(this._retryId);
        this._retryId = 0;
        this._close();
    }

    // Sends one request; `onReply(reply)` gets its answer (null when the connection went first).
    send(request, onReply = null) {
        if (!this.connected)
            return false;
        if (this._queue.length >= MAX_QUEUED) {
            this._lost();
            return false;
        }
        this._queue.push(new TextEncoder().encode(`${JSON.stringify(request)}\n`));
        this._replies.push(onReply);
        this._flush();
        return true;
    }

    _flush() {
        if (this._writing || !this._queue.length || !this._conn)
            return;
        const {GLib} = this._d;
        const parts = this._queue.splice(0);
        const size = parts.reduce((n, p) => n + p.length, 0);
        const all = new Uint8Array(size);
        let at = 0;
        for (const p of parts) {
            all.set(p, at);
            at += p.length;
        }
        this._writing = true;
        this._write(all, GLib);
    }

    _write(bytes, GLib) {
        this._conn.get_output_stream().write_bytes_async(new GLib.Bytes(bytes), GLib.PRIORITY_DEFAULT, this._cancel, (stream, result) => {
            let written;
            try {
                written = stream.write_bytes_finish(result);
            } catch (e) {
                this._writing = false;
                this._lost();
                return;
            }
            if (written < bytes.length) {
                this._write(bytes.slice(written), GLib);
                return;
            }
            this._writing = false;
            this._flush();
        });
    }

    _readLine() {
        const {GLib} = this._d;
        this._input.read_line_async(GLib.PRIORITY_DEFAULT, this._cancel, (stream, result) => {
            let line;
            try {
                [line] = stream.read_line_finish_utf8(result);
            } catch (e) {
                this._lost();
                return;
            }
            if (line === null) {
                this._lost();
                return;
            }
            const onReply = this._replies.shift();
            if (onReply) {
                let reply = null;
                try {
                    reply = JSON.parse(line);
                } catch (e) {
                    reply = {ok: false, error: _('the answer from screentime could not be read')};
                }
                onReply(reply);
            }
            this._readLine();
        });
    }

    _close() {
        const wasConnected = this.connected;
        this.connected = false;
        this._queue = [];
        this._writing = false;
        const waiting = this._replies.splice(0);
        if (this._conn) {
            try {
                this._conn.close(null);
            } catch (e) {}
        }
        this._conn = null;
        for (const onReply of waiting) {
            if (onReply)
                onReply(null);
        }
        return wasConnected;
    }

    _lost() {
        if (this._close())
            this._onConnected(false);
        this._retry();
    }

    _retry() {
        if (this._retryId || this._cancel.is_cancelled())
            return;
        const {GLib} = this._d;
        this._retryId = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, RETRY_S, () => {
            this._retryId = 0;
            this.start();
            return GLib.SOURCE_REMOVE;
        });
    }
}

// What the shell sees, told to the daemon.
class Reporter {
    constructor(deps, link) {
        this._d = deps;
        this._link = link;
        this._lastFocus = null;
        this._signals = [];
        this._titleWindow = null;
        this._titleId = 0;
        this._watches = [];
        this._keepAliveId = 0;
        this._lastInputReport = 0;
        this._sessionIdle = false;
        this._locked = null;
    }

    start() {
        const {Main, Meta} = this._d;
        this._signals.push([global.display, global.display.connect('notify::focus-window', () => this._focusMoved())]);
        this._signals.push([Main.sessionMode, Main.sessionMode.connect('updated', () => this._lockMaybeChanged())]);
        this._monitor = global.backend.get_core_idle_monitor ? global.backend.get_core_idle_monitor() : Meta.IdleMonitor.get_core();
        // Input: a quiet second ends a burst; the next input starts one.
        this._watches.push(this._monitor.add_idle_watch(QUIET_MS, () => this._stopKeepAlive()));
        this._armActive();
        // Idle as the session sees it: GNOME's own idle delay (Settings → Power → Screen Blank).
        const session = new this._d.Gio.Settings({schema_id: 'org.gnome.desktop.session'});
        const delay = session.get_uint('idle-delay');
        if (delay > 0) {
            this._watches.push(this._monitor.add_idle_watch(delay * 1000, () => {
                this._sessionIdle = true;
                const since = new Date(Date.now() - this._monitor.get_idletime()).toISOString();
                this._send({event: 'idle_changed', idle: true, since});
            }));
        }
        this._focusMoved();
    }

    stop() {
        for (const [object, id] of this._signals)
            object.disconnect(id);
        this._signals = [];
        this._forgetTitle();
        for (const id of this._watches)
            this._monitor.remove_watch(id);
        this._watches = [];
        if (this._activeWatch)
            this._monitor.remove_watch(this._activeWatch);
        this._activeWatch = 0;
        this._stopKeepAlive();
    }

    // The link is (again) up: the daemon knows nothing of this session yet.
    resend() {
        this._lastFocus = null;
        this._locked = null;
        this._reportFocus();
        this._lockMaybeChanged();
    }

    _send(event) {
        this._link.send({v: 1, command: 'hook_event', hook: 'gnome-shell', event: JSON.stringify(event)}, reply => {
            if (reply && !reply.ok)
                // not shown: the journal's, for whoever debugs the shell
                log(`screentime: the daemon refused ${event.event}: ${reply.error}`);
        });
    }

    _focusMoved() {
        this._forgetTitle();
        const window = global.display.focus_window;
        if (window) {
            this._titleWindow = window;
            this._titleId = window.connect('notify::title', () => this._reportFocus());
        }
        this._reportFocus();
        if (this.onFocus)
            this.onFocus();
    }

    _forgetTitle() {
        if (this._titleWindow && this._titleId)
            this._titleWindow.disconnect(this._titleId);
        this._titleWindow = null;
        this._titleId = 0;
    }

    _reportFocus() {
        const window = global.display.focus_window;
        const event = {event: 'focus_changed', pid: null};
        if (window) {
            const pid = window.get_pid();
            if (pid > 0)
                event.pid = pid;
            const appId = window.get_wm_class() || window.get_gtk_application_id();
            if (appId)
                event.app_id = appId;
            const title = window.get_title();
            if (title)
                event.title = title;
            const flatpak = window.get_sandboxed_app_id ? window.get_sandboxed_app_id() : null;
            if (flatpak)
                event.flatpak = flatpak;
        }
        const text = JSON.stringify(event);
        if (text === this._lastFocus || !this._link.connected)
            return;
        this._lastFocus = text;
        this._send(event);
    }

    _lockMaybeChanged() {
        const locked = this._d.Main.sessionMode.isLocked;
        if (locked === this._locked || !this._link.connected)
            return;
        this._locked = locked;
        this._send({event: 'lock_changed', locked});
    }

    // Mutter calls a user-active watch once, at the first input after it was added.
    _armActive() {
        this._activeWatch = this._monitor.add_user_active_watch(() => {
            this._activeWatch = 0;
            this._armActive();
            if (this._sessionIdle) {
                this._sessionIdle = false;
                this._send({event: 'idle_changed', idle: false});
            }
            if (!this._keepAliveId) {
                // Input after a quiet second: a new burst, told now.
                this._reportInput();
                this._scheduleKeepAlive();
            }
        });
    }

    _reportInput() {
        this._lastInputReport = Date.now();
        this._send({event: 'input', count: 1});
    }

    _scheduleKeepAlive() {
        const {GLib} = this._d;
        const [low, high] = KEEP_ALIVE_MS;
        const wait = low + Math.floor(Math.random() * (high - low));
        this._keepAliveId = GLib.timeout_add(GLib.PRIORITY_DEFAULT, wait, () => {
            // Input since the last report (the idle time is shorter than the time since it): the
            // burst goes on. Else the quiet-second watch ends it.
            if (this._monitor.get_idletime() < Date.now() - this._lastInputReport)
                this._reportInput();
            this._scheduleKeepAlive();
            return GLib.SOURCE_REMOVE;
        });
    }

    _stopKeepAlive() {
        if (this._keepAliveId)
            this._d.GLib.source_remove(this._keepAliveId);
        this._keepAliveId = 0;
    }
}

// GNOME Shell's notifications, from this extension as their source: `tell` shows one, with an
// optional button (`{label, callback}`). GNOME 46 changed the classes' constructors; both forms
// are here (this machine's tests run GNOME 43).
class Notifications {
    constructor(deps) {
        this._d = deps;
        this._source = null;
    }

    tell(title, body, button = null) {
        const {MessageTray, Main} = this._d;
        const modern = typeof MessageTray.getSystemSource === 'function';    // GNOME 46 and later
        if (!this._source) {
            this._source = modern
                ? new MessageTray.Source({title: 'screentime', iconName: 'applications-games-symbolic'})
                : new MessageTray.Source('screentime', 'applications-games-symbolic');
            // The tray ends a source when its last notification goes: a new one next time.
            this._source.connect('destroy', () => {
                this._source = null;
            });
            Main.messageTray.add(this._source);
        }
        const notification = modern
            ? new MessageTray.Notification({source: this._source, title, body})
            : new MessageTray.Notification(this._source, title, body);
        if (button)
            notification.addAction(button.label, button.callback);
        if (modern)
            this._source.addNotification(notification);
        else
            this._source.showNotification(notification);
    }

    destroy() {
        if (this._source)
            this._source.destroy();
        this._source = null;
    }
}

// The top bar: screen time left (with `[screen]`), game time left now and points, as the daemon
// says; in its menu the details, and what the child may ask of the daemon (`send(request,
// onReply)`: one request on the daemon's connection).
class Indicator {
    constructor(deps, send) {
        this._d = deps;
        this._send = send;
        // Asks the daemon for the status again (after a redemption changed it).
        this.refresh = () => {};
        this._tray = new Notifications(deps);
        const {St, Clutter, Gio, PanelMenu, PopupMenu, Main} = deps;
        this.state = {Text: '', GameSecondsLeft: -1, ScreenText: '', ScreenSecondsLeft: -1, Details: '', Points: 0, Connected: false, Watched: false};
        this._button = new PanelMenu.Button(0.0, 'screentime', false);
        const box = new St.BoxLayout({style_class: 'panel-status-menu-box'});
        // Screen time: shown only when the daemon says there is some to show.
        this._screenIcon = new St.Icon({icon_name: 'video-display-symbolic', style_class: 'system-status-icon', visible: false});
        this._screenLabel = new St.Label({text: '', y_align: Clutter.ActorAlign.CENTER, visible: false});
        box.add_child(this._screenIcon);
        box.add_child(this._screenLabel);
        box.add_child(new St.Icon({icon_name: 'applications-games-symbolic', style_class: 'system-status-icon'}));
        this._label = new St.Label({text: '…', y_align: Clutter.ActorAlign.CENTER});
        box.add_child(this._label);
        this._button.add_child(box);
        this._details = new PopupMenu.PopupMenuItem('', {reactive: false});
        this._button.menu.addMenuItem(this._details);
        this._addAsking();
        this._button.visible = false;
        Main.panel.addToStatusArea('screentime', this._button);
        this._dbus = Gio.DBusExportedObject.wrapJSObject(INDICATOR_XML, this.state);
        this._dbus.export(Gio.DBus.session, '/org/screentime/Indicator');
        this._lastNotice = null;
        this._status = null;
        this._gotAt = 0;
    }

    destroy() {
        this._destroyed = true;
        this._dbus.unexport();
        this._button.destroy();
        this._tray.destroy();
    }

    // The menu's part for the child: "Ask for more time" (minutes and a reason typed there, then
    // game time or screen time), "I did a chore" (today's chores, filled each time the menu
    // opens) and "Redeem points" (shown only where the policy allows it).
    _addAsking() {
        const {St, PopupMenu} = this._d;
        const menu = this._button.menu;
        menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());

        this._ask = new PopupMenu.PopupSubMenuMenuItem(_('Ask for more time'));
        const fields = new PopupMenu.PopupBaseMenuItem({reactive: false, can_focus: false});
        const box = new St.BoxLayout({vertical: true, x_expand: true, style: 'spacing: 6px;'});
        // TRANSLATORS: the hint in the field where the child types how many minutes they ask for
        this._minutes = new St.Entry({hint_text: _('Minutes'), text: '15', can_focus: true, x_expand: true});
        // TRANSLATORS: the hint in the field where the child types why they ask
        this._reason = new St.Entry({hint_text: _('Why? A parent reads it'), can_focus: true, x_expand: true});
        box.add_child(this._minutes);
        box.add_child(this._reason);
        fields.add_child(box);
        this._ask.menu.addMenuItem(fields);
        this._askGame = new PopupMenu.PopupMenuItem(_('Ask for game time'));
        this._askGame.connect('activate', () => this._askFromMenu(false));
        this._ask.menu.addMenuItem(this._askGame);
        this._askScreen = new PopupMenu.PopupMenuItem(_('Ask for screen time'));
        this._askScreen.connect('activate', () => this._askFromMenu(true));
        this._askScreen.visible = false;
        this._ask.menu.addMenuItem(this._askScreen);
        menu.addMenuItem(this._ask);

        this._chores = new PopupMenu.PopupSubMenuMenuItem(_('I did a chore'));
        menu.addMenuItem(this._chores);
        this._redeem = new PopupMenu.PopupSubMenuMenuItem(_('Redeem points'));
        this._redeem.visible = false;
        menu.addMenuItem(this._redeem);
        menu.connect('open-state-changed', (_menu, open) => {
            if (open)
                this._fillChores();
        });
    }

    // A request from the menu, and what came of it as a notification.
    _request(request, then = null) {
        const sent = this._send(request, reply => {
            if (this._destroyed)
                return;
            // Sent, but the connection went before the answer: it may have been done.
            const words = reply ? answerWords(request.command, reply) : lostWords();
            this._tray.tell(words.title, words.body);
            if (then)
                then(reply);
        });
        if (!sent) {
            const words = answerWords(request.command, null);
            this._tray.tell(words.title, words.body);
        }
    }

    _askFromMenu(screen) {
        const made = askRequest(this._minutes.get_text(), this._reason.get_text(), screen);
        if (made.problem) {
            this._tray.tell(_('Not asked yet'), made.problem);
            return;
        }
        this._request(made.request, reply => {
            if (reply && reply.ok)
                this._reason.set_text('');
        });
    }

    // Today's chores, as the daemon lists them now.
    _fillChores() {
        const {PopupMenu} = this._d;
        const fill = items => {
            if (this._destroyed)
                return;
            this._chores.menu.removeAll();
            for (const item of items) {
                const line = new PopupMenu.PopupMenuItem(item.label, {reactive: item.chore !== null});
                if (item.chore !== null)
                    line.connect('activate', () => this._request({v: 1, command: 'chore_done', chore: item.chore}));
                this._chores.menu.addMenuItem(line);
            }
        };
        const unknown = [{label: _('screentime did not answer'), chore: null}];
        const sent = this._send({v: 1, command: 'chores'}, reply => fill(reply && reply.ok ? choreItems(reply.chores) : unknown));
        if (!sent)
            fill(unknown);
    }

    // The redemptions the policy allows, priced as the last status says.
    _fillRedeem(s) {
        const {PopupMenu} = this._d;
        const items = redeemItems(s);
        this._redeem.visible = items.length > 0;
        const shape = JSON.stringify(items);
        if (shape === this._redeemShape)
            return;
        this._redeemShape = shape;
        this._redeem.menu.removeAll();
        for (const item of items) {
            const line = new PopupMenu.PopupMenuItem(item.label, {reactive: item.enough});
            line.connect('activate', () => this._request({v: 1, command: 'redeem', minutes: item.minutes}, () => this.refresh()));
            this._redeem.menu.addMenuItem(line);
        }
    }

    _set(changes) {
        const {GLib} = this._d;
        const types = {Text: 's', GameSecondsLeft: 'x', ScreenText: 's', ScreenSecondsLeft: 'x', Details: 's', Points: 'x', Connected: 'b', Watched: 'b'};
        for (const [name, value] of Object.entries(changes)) {
            if (this.state[name] === value)
                continue;
            this.state[name] = value;
            this._dbus.emit_property_changed(name, new GLib.Variant(types[name], value));
        }
    }

    disconnected() {
        this._button.visible = false;
        this._status = null;
        this._set({Connected: false, Watched: false, Text: '', GameSecondsLeft: -1, ScreenText: '', ScreenSecondsLeft: -1, Details: ''});
    }

    // One `status` reply (null: the connection went before it came).
    show(reply) {
        if (!reply)
            return;
        if (!reply.ok || !reply.status) {
            // Not a watched child (a parent's session, say): nothing to show.
            this._button.visible = false;
            this._status = null;
            this._set({Connected: true, Watched: false, Text: '', GameSecondsLeft: -1, ScreenText: '', ScreenSecondsLeft: -1, Details: ''});
            return;
        }
        this._status = reply.status;
        this._gotAt = this._d.GLib.get_monotonic_time();
        this._render();
        this._askScreen.visible = Boolean(reply.status.screen) && !reply.status.screen.free_day;
        this._fillRedeem(reply.status);
        this._notify(reply.status.notices || []);
    }

    // Between two answers the figures run on, as the daemon said they would (indicatorView).
    // Called every second.
    tick() {
        const s = this._status;
        if (s && (s.reward_counting || s.learning_counting || (s.screen && (s.screen.counting || s.screen.limit === 'bedtime'))))
            this._render();
    }

    // The last status, moved on by the seconds since it came.
    _render() {
        const s = this._status;
        const passed = Math.floor((this._d.GLib.get_monotonic_time() - this._gotAt) / 1000000);
        const view = indicatorView(s, passed);
        this._label.text = view.text;
        this._screenLabel.text = view.screenText;
        this._screenIcon.visible = this._screenLabel.visible = view.screenText !== '';
        const details = view.lines.join('\n');
        this._details.label.text = details;
        this._button.visible = true;
        this._set({Connected: true, Watched: true, Text: view.text, GameSecondsLeft: view.gameSecondsLeft, ScreenText: view.screenText,
            ScreenSecondsLeft: view.screenSecondsLeft, Details: details, Points: s.balance});
    }

    // The daemon's notices that it could not show itself (system mode has no way into the
    // child's session bus): shown once each. Those from before this shell connected are not.
    _notify(notices) {
        const newest = notices.reduce((n, x) => Math.max(n, x.id), 0);
        if (this._lastNotice === null) {
            this._lastNotice = newest;
            return;
        }
        for (const notice of notices) {
            if (notice.id <= this._lastNotice || notice.shown)
                continue;
            // A warning's button: the child's own `ask`, as the daemon's button would send it.
            const ask = notice.ask;
            const button = ask ? {
                label: fill(ngettext('Ask for {n} more minute', 'Ask for {n} more minutes', ask.minutes), {n: ask.minutes}),
                callback: () => this._request(Object.assign({v: 1, command: 'ask', minutes: ask.minutes, reason: BUTTON_REASON},
                    ask.screen ? {screen: true} : {})),
            } : null;
            this._tray.tell(notice.summary, notice.body, button);
        }
        this._lastNotice = Math.max(this._lastNotice, newest);
    }
}

// The extension as GNOME Shell enables and disables it.
function createScreenTime(deps) {
    if (deps.gettext && deps.ngettext) {
        _ = deps.gettext;
        ngettext = deps.ngettext;
    }
    let link = null, reporter = null, indicator = null, statusId = 0, seconds = 0;
    const askStatus = () => {
        if (link && link.connected)
            link.send({v: 1, command: 'status'}, reply => indicator && indicator.show(reply));
    };
    return {
        enable() {
            const {GLib} = deps;
            indicator = new Indicator(deps, (request, onReply) => link !== null && link.send(request, onReply));
            indicator.refresh = askStatus;
            link = new DaemonLink(deps, up => {
                if (up) {
                    reporter.resend();
                    askStatus();
                } else {
                    indicator.disconnected();
                }
            });
            reporter = new Reporter(deps, link);
            reporter.onFocus = askStatus;
            reporter.start();
            link.start();
            // Every second the figures run on; every STATUS_EVERY_S the daemon is asked again.
            statusId = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 1, () => {
                seconds += 1;
                if (seconds % STATUS_EVERY_S === 0)
                    askStatus();
                else
                    indicator.tick();
                return GLib.SOURCE_CONTINUE;
            });
        },
        disable() {
            if (statusId)
                deps.GLib.source_remove(statusId);
            statusId = 0;
            // The indicator first: the link's stop answers its waiting requests with null, and a
            // destroyed indicator tells nothing of them (the shell disables extensions at each lock).
            indicator.destroy();
            reporter.stop();
            link.stop();
            reporter = link = indicator = null;
        },
    };
}
