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
# en-US: a time field is typed as hours, minutes and AM/PM ("0915PM" is 21:15).
for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,800",
          f"--user-data-dir={SHOTS}/profile", "--no-first-run", "--disable-extensions", "--disable-background-networking",
          "--lang=en-US"]:
    options.add_argument(a)
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


def flash():
    return wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".flash"))).text


def alert():
    """The page's refusal after a form (red, role=alert)."""
    return wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".error[role='alert']"))).text


def no_overflow(where):
    wide = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    expect(wide[0] <= wide[1], f"{where}: the page is {wide[0]} px wide in a {wide[1]} px window (it scrolls sideways)")


def shots(name):
    for (w, h) in [(390, 844), (1280, 800)]:
        browser.set_window_size(w, h)
        # The viewport, not the window, is what must be 390 px wide.
        inner = browser.execute_script("return window.innerWidth")
        if inner != w:
            browser.set_window_size(w + (w - inner), h)
        time.sleep(0.3)  # a relayout, for the picture only; nothing is asserted on it
        if w == 390:
            no_overflow(f"{name} at 390 px")
        expect(browser.save_screenshot(f"{SHOTS}/{name}-{w}x{h}.png"), f"no screenshot of {name} at {w}x{h}")
    browser.set_window_size(1280, 800)
    # Until the page has its width again (the window manager of a headless browser is quick, not instant).
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return window.innerWidth") <= 1280)
