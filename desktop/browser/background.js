// screentime's browser extension: the wiring between the browser and core.js (what it decides
// nothing about is said there). Chromium runs this as the extension's service worker (core.js
// through importScripts), Firefox as its background script after core.js (manifest.json).
'use strict';

if (typeof screentimeCore === 'undefined' && typeof importScripts === 'function') importScripts('core.js');
const api = globalThis.browser ?? globalThis.chrome;
// The native messaging host's name (its manifests: packaging/browser/chromium-host.json.in, mozilla-host.json.in).
const HOST = 'org.screentime.browser';

let port = null;
const answers = screentimeCore.answerQueue();
let last = null;
let focused = null;
let lastFocused = null;

/// The port to screentime-browser-host. When it closes (the host ended), the report is sent
/// again through a new one a second later: screentime forgets a report whose host went away, and
/// a browser that says nothing for long is a game to it.
function connect() {
    port = api.runtime.connectNative(HOST);
    port.onMessage.addListener(answer => {
        const asker = answers.answered();
        if (asker) asker(answer); else stopTabs(answer);
    });
    port.onDisconnect.addListener(() => {
        port = null;
        last = null;
        for (const asker of answers.lost()) asker({error: 'screentime is not running'});
        setTimeout(() => tell(true), 1000);
    });
}

/// Sends a message to the host; `onAnswer` (for an ask) gets its answer, a report's answer stops tabs.
function post(message, onAnswer) {
    if (port === null) connect();
    answers.sent(onAnswer);
    port.postMessage(message);
}

/// Sends the report when it changed, or (`again`) whatever it is.
async function tell(again) {
    const tabs = await api.tabs.query({});
    const r = screentimeCore.report(tabs, focused, lastFocused);
    if (!again && screentimeCore.same(r, last)) return;
    last = r;
    post(r, null);
}

/// Shows the extension's page in each tab screentime says must not show its site.
async function stopTabs(answer) {
    const tabs = await api.tabs.query({});
    for (const s of screentimeCore.tabsToStop(tabs, answer, pageURL)) api.tabs.update(s.tabId, {url: s.url});
}

function pageURL(stop) {
    const q = new URLSearchParams({site: stop.site, host: stop.host, reason: stop.reason});
    return api.runtime.getURL('stopped.html') + '?' + q.toString();
}

// The extension's page asks for game time (stopped.js): passed on, and the answer given back.
api.runtime.onMessage.addListener((message, _sender, reply) => {
    if (!message || message.type !== 'ask') return false;
    post({type: 'ask', minutes: message.minutes, reason: message.reason}, reply);
    return true;   // the answer comes later
});
api.tabs.onActivated.addListener(() => tell(false));
api.tabs.onUpdated.addListener((_id, change) => { if ('url' in change || 'audible' in change) tell(false); });
api.tabs.onRemoved.addListener(() => tell(false));
api.windows.onFocusChanged.addListener(w => {
    focused = w === api.windows.WINDOW_ID_NONE ? null : w;
    if (focused !== null) lastFocused = focused;
    tell(false);
});
// Said again every few seconds: a stop decided while a tab stays open (game time running out)
// is heard then. (The open native port keeps Chromium's service worker running.)
setInterval(() => tell(true), screentimeCore.REPORT_EVERY_S * 1000);
api.windows.getLastFocused().then(w => { if (w && w.focused) { focused = w.id; lastFocused = w.id; } tell(true); });
