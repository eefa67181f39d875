#!/usr/bin/python3
"""The first-run page of `screentime-setup --web` in a real headless Chromium (SetupTests.web): a
parent ticks the children and the parent, leaves a game out, types the passphrase wrong once
(the page says so and asks again), then right, and reads what was done. A page opened without
the printed address's key is refused. It fails (exit 1) on the first expectation not met.

Environment: URL (the address setup printed, with its key), CHILDREN and PARENT (names),
PASSPHRASE, SHOTS.
"""
import os
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import Select

from web_page import browser, expect, shots, submit, wait

URL = os.environ["URL"]
CHILDREN = os.environ["CHILDREN"].split()
PARENT = os.environ["PARENT"]
PASSPHRASE = os.environ["PASSPHRASE"]

try:
    # Without the key: refused.
    base = URL.split("/setup?")[0]
    try:
        urllib.request.urlopen(base + "/setup")
        raise SystemExit("web-setup.py: the setup page opened without its key")
    except urllib.error.HTTPError as e:
        expect(e.code == 403, f"the setup page without its key answered {e.code}")

    browser.get(URL)
    wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, "form[action='/setup']")))

    def tick(legend, names):
        box = [f for f in browser.find_elements(By.TAG_NAME, "fieldset") if f.find_element(By.TAG_NAME, "legend").text == legend][0]
        more = box.find_element(By.CSS_SELECTOR, "input[name$='-more']")
        more.clear()
        more.send_keys(" ".join(names))   # (test accounts have uids a desktop does not list)

    def fill(again):
        tick("Who are the children?", CHILDREN)
        tick("Who are the parents?", [PARENT])
        game = [s for s in browser.find_elements(By.CSS_SELECTOR, "select") if "Kart Race" in s.find_element(By.XPATH, "..").text][0]
        Select(game).select_by_value("out")
        browser.find_element(By.NAME, "passphrase").send_keys(PASSPHRASE)
        browser.find_element(By.NAME, "again").send_keys(again)

    fill(PASSPHRASE + " not")
    shots("setup")
    submit(browser.find_element(By.CSS_SELECTOR, "form[action='/setup'] button[type='submit']"))
    error = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".error"))).text
    expect("not the same" in error, f"two different passphrases said {error!r}")

    fill(PASSPHRASE)
    submit(browser.find_element(By.CSS_SELECTOR, "form[action='/setup'] button[type='submit']"))
    done = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, "main.setup ul"))).text
    expect("Wrote" in done and "The parents' page: http://127.0.0.1:8470/" in done, f"the page says {done!r}")
    shots("setup-done")
finally:
    browser.quit()
