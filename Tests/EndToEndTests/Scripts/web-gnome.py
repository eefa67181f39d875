#!/usr/bin/python3
"""The parents' page in a real headless Chromium while the child uses the GNOME Shell menu
(GnomeMenuTests.swift): a parent logs in and keeps the family page open; the child's request,
asked from the top bar's menu, and the chore claimed there appear on the page without a reload.
It writes READY once the page is open, then waits for what the child does; it fails (exit 1) on
the first expectation not met, saying which. The browser is web_page.py's.

Environment: URL (the page), PASSPHRASE, CHILD (name), SHOTS (a folder for the browser's
profile and the screenshots), READY (a file to write when the page is open), REASON (the words
the child types), CHORE (the chore the child claims).
"""
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from web_page import browser, card, expect, log_in, shots

URL = os.environ["URL"]
CHILD = os.environ["CHILD"]
REASON = os.environ["REASON"]
CHORE = os.environ["CHORE"]
# The child's side is driven by the test meanwhile (a headless GNOME Shell on a loaded machine).
child_wait = WebDriverWait(browser, 180)


def shows(selector, words):
    """Waits until an element of the child's card matching `selector` holds `words`."""
    def check(_):
        return any(words in e.text for e in card().find_elements(By.CSS_SELECTOR, selector))
    return check


try:
    log_in(URL)
    # A marker that a reload would lose.
    browser.execute_script("window.stillThisPage = 'yes'")
    with open(os.environ["READY"] + ".tmp", "w") as f:
        f.write("open\n")
    os.rename(os.environ["READY"] + ".tmp", os.environ["READY"])

    child_wait.until(shows(".request", REASON))
    request = [e for e in card().find_elements(By.CSS_SELECTOR, ".request") if REASON in e.text][0]
    expect("15" in request.text, f"the request from the menu shows as {request.text!r}, not for 15 minutes")
    expect(browser.execute_script("return window.stillThisPage") == "yes", "the page was loaded again to show the request")
    shots("family-gnome-request")

    child_wait.until(shows(".chore", CHORE))
    expect(browser.execute_script("return window.stillThisPage") == "yes", "the page was loaded again to show the chore")
finally:
    browser.quit()
