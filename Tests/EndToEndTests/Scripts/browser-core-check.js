// Checks desktop/browser/core.js in gjs (Debian's JavaScript engine of GNOME, as the GNOME
// extension's core is checked): run as `gjs browser-core-check.js CORE_JS LOCALES` (LOCALES: the
// _locales folder tools/messages compile-browser wrote); prints "ok" or throws.
const {GLib} = imports.gi;
const [, bytes] = GLib.file_get_contents(ARGV[0]);
(0, eval)(new TextDecoder().decode(bytes));
const c = globalThis.screentimeCore;
// The browser's i18n.getMessage over ARGV[1]/LANGUAGE/messages.json: a message's $NAME$ is its
// placeholder's content, $1 the first fill.
function sayIn(language) {
    const [, json] = GLib.file_get_contents(`${ARGV[1]}/${language}/messages.json`);
    const messages = JSON.parse(new TextDecoder().decode(json));
    return (name, fills = []) => {
        const m = messages[name];
        if (!m) throw new Error(`no message ${name} in ${language}`);
        return m.message.replace(/\$([A-Za-z0-9_]+)\$/g, (_, p) =>
            m.placeholders[p.toLowerCase()].content.replace(/\$(\d)/g, (__, i) => fills[Number(i) - 1]));
    };
}
const say = sayIn('en');
function expect(got, want, what) {
    const g = JSON.stringify(got), w = JSON.stringify(want);
    if (g !== w) throw new Error(`${what}: got ${g}, want ${w}`);
}
// Hosts only: never the path, the query, a port or who logged in.
expect(c.hostOf('https://www.KhanAcademy.org/math/x?q=1#a'), 'www.khanacademy.org', 'a page');
expect(c.hostOf('http://user:pw@poki.com:8080/game'), 'poki.com', 'a port and a login');
expect(c.hostOf('https://[::1]:8443/'), '[::1]', 'an IPv6 address');
expect(c.hostOf('https://example.org./'), 'example.org', 'the root dot');
for (const u of ['chrome://settings', 'about:newtab', 'file:///home/emma/a.html', 'chrome-extension://abc/stopped.html', '', null, undefined])
    expect(c.hostOf(u), null, `not a web page: ${u}`);
// The focused window's active tab, and the audible tabs of every window.
const tabs = [
    {id: 1, windowId: 10, active: true, audible: false, url: 'https://www.khanacademy.org/a'},
    {id: 2, windowId: 10, active: false, audible: true, url: 'https://www.youtube.com/watch?v=x'},
    {id: 3, windowId: 11, active: true, audible: true, url: 'https://m.youtube.com/'},
    {id: 4, windowId: 11, active: false, audible: true, url: 'https://www.youtube.com/other'},
];
expect(c.report(tabs, 10, 10), {type: 'report', host: 'www.khanacademy.org', audible: ['m.youtube.com', 'www.youtube.com'], focused: true}, 'window 10 focused');
expect(c.report(tabs, 11, 10).host, 'm.youtube.com', 'window 11 focused');
// No browser window focused: the last focused one's tab, said not focused (the daemon decides by the desktop's focus).
expect(c.report(tabs, null, 11), {type: 'report', host: 'm.youtube.com', audible: ['m.youtube.com', 'www.youtube.com'], focused: false}, 'none focused');
expect(c.report([], null, null), {type: 'report', host: null, audible: [], focused: false}, 'no tabs');
expect(c.same(c.report(tabs, 10, 10), c.report(tabs, 10, 10)), true, 'same report');
expect(c.same(c.report(tabs, 10, 10), c.report(tabs, 11, 10)), false, 'another report');
expect(c.same(null, c.report(tabs, 10, 10)), false, 'no report yet');
// Every tab of a stopped host gets the page; no other tab.
const stopped = c.tabsToStop(tabs, {stops: [{host: 'www.youtube.com', site: 'YouTube', reason: 'daily_limit'}]}, s => `page:${s.site}:${s.reason}`);
expect(stopped, [{tabId: 2, url: 'page:YouTube:daily_limit'}, {tabId: 4, url: 'page:YouTube:daily_limit'}], 'stopped tabs');
expect(c.tabsToStop(tabs, {error: 'screentime is not running'}, () => 'x'), [], 'an error stops nothing');
expect(c.words('blocked', 'Poki', say), 'Poki is not for you on this computer. Ask a parent if you think it should be.', 'blocked words');
expect(c.words('no_reward_time', 'YouTube', say), 'You have no game time left now. YouTube counts as game time.', 'no time words');
// Asking for game time helps unless the site is blocked; the page's words for the host's answer.
expect(c.canAsk('blocked'), false, 'a blocked site: no asking');
for (const r of ['no_reward_time', 'daily_limit', 'app_limit', 'outside_hours']) expect(c.canAsk(r), true, `asking when ${r}`);
expect(c.askWords({asked: true}, say), 'Asked! A parent will see it and answer.', 'asked');
expect(c.askWords({error: 'not asked: x'}, say), 'That did not work. Ask a parent yourself.', 'refused');
expect(c.askWords(undefined, say), 'That did not work. Ask a parent yourself.', 'no answer');
// In German and Spanish, as a browser in that language shows them (the catalogs po/browser/*.po).
const de = sayIn('de'), es = sayIn('es');
expect(c.words('blocked', 'Poki', de), 'Poki ist auf diesem Computer nicht für dich. Frag deine Eltern, wenn du findest, dass es anders sein sollte.', 'blocked in German');
expect(c.words('daily_limit', 'YouTube', es), 'Tu tiempo de juego se ha acabado por hoy. YouTube cuenta como tiempo de juego.', 'daily limit in Spanish');
expect(de('notNowSite', ['YouTube']), 'Jetzt nicht: YouTube', 'the title in German');
expect(c.askWords({asked: true}, es), '¡Pedido! Tus padres lo verán y te responderán.', 'asked in Spanish');
// Answers in the order the messages went: a report's to the tabs, an ask's to whoever asked.
const q = c.answerQueue();
const asker = a => a;
q.sent(null); q.sent(asker); q.sent(null);
expect(q.answered(), null, 'the first answer is a report\'s');
expect(q.answered() === asker, true, 'the second is the ask\'s');
q.sent(asker);
expect(q.lost().length, 1, 'the host gone: the ask that waits is told, the report is not');
expect(q.answered(), null, 'nothing waits after that');
print('ok');
