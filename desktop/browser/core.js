// screentime's browser extension: the part that decides nothing and touches no browser API, so
// that it is tested alone (Tests/EndToEndTests/BrowserExtensionTests.swift runs it in gjs).
// background.js feeds it the browser's tabs and windows and carries out what it returns.
//
// What the extension does (docs/spec/sites.md), and only this:
// - reports to screentime, through its native messaging host, the host of the focused window's
//   active tab (never the path or the query), the hosts of tabs playing sound, and whether a
//   window of the browser has the focus: when any of it changes, and every 5 s (so that a stop
//   decided while a tab stays open is heard);
// - shows its own page, in a child's words, in each tab whose host screentime says must not be
//   shown (a blocked site, or a game site when game time is gone). It never closes the browser or
//   a tab. What counts, and what is stopped, is the daemon's business;
// - on that page, when game time is what is missing, lets the child ask a parent for more: the
//   request goes through the same host to the daemon, as `stctl ask` would send it.

'use strict';

const screentimeCore = (() => {
    // Every how many seconds the report is sent again although nothing changed.
    const REPORT_EVERY_S = 5;

    /// The host of a web page's address, in lower case; null for anything that is not a web page
    /// (the browser's own pages, files, the extension's page, a new tab).
    function hostOf(url) {
        if (typeof url !== 'string') return null;
        const m = /^https?:\/\/(?:[^@/?#]*@)?(\[[0-9a-fA-F:.]+\]|[^:/?#]+)/.exec(url);
        if (!m) return null;
        let host = m[1].toLowerCase();
        if (host.endsWith('.')) host = host.slice(0, -1);
        return host.length > 0 && host.length <= 253 ? host : null;
    }

    /// The report for the browser's state: `tabs` as [{id, url, active, audible, windowId}],
    /// `focusedWindow` the id of the browser window that has the focus (null: none).
    function report(tabs, focusedWindow, lastFocusedWindow) {
        const shown = focusedWindow ?? lastFocusedWindow;
        const active = tabs.find(t => t.active && t.windowId === shown);
        const audible = [...new Set(tabs.filter(t => t.audible).map(t => hostOf(t.url)).filter(h => h !== null))].sort();
        return {type: 'report', host: active ? hostOf(active.url) : null, audible, focused: focusedWindow !== null};
    }

    /// Whether two reports say the same.
    function same(a, b) {
        return a !== null && b !== null && a.host === b.host && a.focused === b.focused &&
            a.audible.length === b.audible.length && a.audible.every((h, i) => h === b.audible[i]);
    }

    /// The tabs to show the extension's page in, for the daemon's answer `{stops: [{host, site,
    /// reason}]}`: each tab whose host is stopped, with what the page says. `pageURL(stop)` makes
    /// the page's address.
    function tabsToStop(tabs, answer, pageURL) {
        const stops = new Map((answer && Array.isArray(answer.stops) ? answer.stops : []).map(s => [s.host, s]));
        const out = [];
        for (const t of tabs) {
            const stop = stops.get(hostOf(t.url));
            if (stop) out.push({tabId: t.id, url: pageURL(stop, t.url)});
        }
        return out;
    }

    /// The message (in _locales/, the browser's own way to translate an extension) that says, in
    /// a child's words, why a site is not shown.
    const WHY = {
        blocked: 'blocked', app_limit: 'appLimit', daily_limit: 'dailyLimit', weekly_limit: 'weeklyLimit',
        outside_hours: 'outsideHours', stopped_by_parent: 'stoppedByParent',
    };

    /// What the extension's page says for why a site is not shown, in the browser's language:
    /// `say(name, [site])` is the browser's `i18n.getMessage` (any other reason: no game time).
    function words(reason, site, say) {
        return say(WHY[reason] ?? 'noGameTime', [site]);
    }

    /// Whether asking for game time can help, for why a site is not shown (a blocked site stays
    /// blocked whatever time there is).
    function canAsk(reason) {
        return reason !== 'blocked';
    }

    /// What the page says once it asked, for the host's answer (`{asked: true}` or `{error}`).
    function askWords(answer, say) {
        return say(answer && answer.asked === true ? 'asked' : 'askFailed');
    }

    /// The host answers each message once, in the order it got them: this keeps who waits for
    /// each answer (null for a report, whose answer says which tabs to stop).
    function answerQueue() {
        const waiting = [];
        return {
            sent(onAnswer) { waiting.push(onAnswer ?? null); },
            answered() { return waiting.length > 0 ? waiting.shift() : null; },
            // The host went away: those who wait for an answer get none.
            lost() { return waiting.splice(0).filter(w => w !== null); },
        };
    }

    return {REPORT_EVERY_S, hostOf, report, same, tabsToStop, words, canAsk, askWords, answerQueue};
})();

globalThis.screentimeCore = screentimeCore;
