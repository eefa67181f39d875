"""What the Chromium scripts of the parents' page share (web-browser.py, web-screen.py): a real
headless Chromium (Debian's chromium and chromium-driver, Selenium), started on import, and the
ways they press a form's button, read the page's answer and check its width.

Environment: SHOTS (a folder for the screenshots and the browser's profile), CHILD (the child's
name on the family page).
"""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

SHOTS = os.environ["SHOTS"]
CHILD = os.environ["CHILD"]


def fail(why):
    print(os.path.basename(sys.argv[0]) + ": " + why, file=sys.stderr)
    sys.exit(1)


def expect(condition, why):
    if not condition:
        fail(why)


options = Options()
options.binary_location = "/usr/bin/chromium"
# en-US unless BROWSER_LANG says another (web-language.py): a time field is typed as hours, minutes
# and AM/PM in en-US ("0915PM" is 21:15). The browser's language is what its Accept-Language says.
BROWSER_LANG = os.environ.get("BROWSER_LANG", "en-US")
for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,800",
          f"--user-data-dir={SHOTS}/profile", "--no-first-run", "--disable-extensions", "--disable-background-networking",
          f"--lang={BROWSER_LANG}", f"--accept-lang={BROWSER_LANG}"]:
    options.add_argument(a)
options.add_experimental_option("prefs", {"intl.accept_languages": BROWSER_LANG})
browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
# Long enough for a loaded 2-core machine; what is waited for comes as soon as it is there.
wait = WebDriverWait(browser, 30)


def card():
    return browser.find_element(By.ID, f"child-{CHILD}")


def figure(name):
    return card().find_element(By.CSS_SELECTOR, f'[data-figure="{name}"]')


def submit(button):
    """Presses a form's button (from the keyboard: where it is on the screen does not matter, so a
    page still laying itself out cannot move it from under a click) and waits for the page it
    leads to (not the old one's words)."""
    old = browser.find_element(By.TAG_NAME, "html")
    button.send_keys(Keys.ENTER)
    wait.until(gone(old))


def gone(element):
    """Whether an element of the old page is gone. Chromium may say so with an inspector error ("Node
    with given id does not belong to the document") instead of the stale-element error that
    selenium's staleness_of waits for, when the new page replaces the old just as it asks."""
    def check(_):
        try:
            element.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as e:
            if "does not belong to the document" in str(e):
                return True
            raise
    return check


def log_in(url):
    """Logs in as "mum" with the passphrase of the environment (PASSPHRASE), from the login page
    to the family page."""
    browser.get(url + "/login")
    browser.find_element(By.NAME, "parent").send_keys("mum")
    browser.find_element(By.NAME, "passphrase").send_keys(os.environ["PASSPHRASE"])
    submit(browser.find_element(By.CSS_SELECTOR, "form[action='/login'] button"))
    wait.until(ready.presence_of_element_located((By.ID, f"child-{CHILD}")))


def flash():
    return wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".flash"))).text


def alert():
    """The page's refusal after a form (red, role=alert)."""
    return wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".error[role='alert']"))).text


def no_overflow(where):
    wide = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    expect(wide[0] <= wide[1], f"{where}: the page is {wide[0]} px wide in a {wide[1]} px window (it scrolls sideways)")


# axe-core, Deque's accessibility checker (tools/fetch-axe puts it in .build/axe).
with open(os.environ["AXE"]) as f:
    AXE = f.read()


def axe_findings(context):
    """What axe-core finds in `context` (a CSS selector, or the whole document)."""
    browser.execute_script(AXE)
    return browser.execute_async_script("""
        var done = arguments[arguments.length - 1];
        axe.run(arguments[0] || document, {resultTypes: ["violations"]}).then(function (r) {
            done(r.violations.map(function (v) {
                return {id: v.id, impact: v.impact, help: v.help, where: v.nodes.slice(0, 3).map(function (n) { return n.target.join(" "); })};
            }));
        }, function (e) { done([{id: "axe failed", impact: "critical", help: String(e), where: []}]); });""", context)


def accessible(where):
    """axe-core's check of the page as it is now: no serious or critical finding (WCAG's rules and
    axe's best practices: names of controls, contrast, landmarks, tables, ...). First, that the
    checker does find something: a field without a label, added for the moment."""
    browser.execute_script("var p = document.createElement('div'); p.id = 'axe-probe'; p.innerHTML = '<input type=text>'; document.body.appendChild(p);")
    probe = axe_findings("#axe-probe")
    browser.execute_script("document.getElementById('axe-probe').remove();")
    expect(any(v["id"] == "label" and v["impact"] == "critical" for v in probe), f"{where}: axe-core did not find an unlabelled field: {probe}")
    bad = [v for v in axe_findings(None) if v["impact"] in ("serious", "critical")]
    expect(not bad, f"{where}: axe-core finds {bad}")


def scheme(dark):
    """The system's light or dark preference, as the page sees it (prefers-color-scheme)."""
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


def shots(name):
    """Screenshots of the page at a phone's and a laptop's size, light and dark; at 390 px it must
    not scroll sideways, and in each scheme axe-core must find nothing serious."""
    for dark in [False, True]:
        scheme(dark)
        for (w, h) in [(390, 844), (1280, 800)]:
            browser.set_window_size(w, h)
            # The viewport, not the window, is what must be 390 px wide.
            inner = browser.execute_script("return window.innerWidth")
            if inner != w:
                browser.set_window_size(w + (w - inner), h)
            time.sleep(0.3)  # a relayout, for the picture only; nothing is asserted on it
            if w == 390:
                no_overflow(f"{name} at 390 px")
                accessible(f"{name}, {'dark' if dark else 'light'}")
            expect(browser.save_screenshot(f"{SHOTS}/{name}-{w}x{h}{'-dark' if dark else ''}.png"), f"no screenshot of {name} at {w}x{h}")
    scheme(False)
    browser.set_window_size(1280, 800)
    # Until the page has its width again (the window manager of a headless browser is quick, not instant).
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return window.innerWidth") <= 1280)
