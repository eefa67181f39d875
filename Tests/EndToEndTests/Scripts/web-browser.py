#!/usr/bin/python3
"""The parents' page in a real headless Chromium (Debian's chromium and chromium-driver, Selenium),
against the real daemon and screentime-web: log in; a child's `stctl ask` appears without a
reload; approving it gives the child the minutes; a chore approved; redeem and adjust; the week's
charts carry the report's figures; screenshots at 390x844 and 1280x800, no horizontal overflow at
390. Run by WebPageTests.swift, which starts the daemon and the page; it fails (exit 1) on the
first expectation not met, saying which. The browser, and how a form's button is pressed, are
web_page.py's.

Environment: URL (the page), PASSPHRASE, CHILD (name), CHILD_UID, STCTL, SOCKET, SHOTS (a folder
for the screenshots), DAY (a day with learning in the child's state, YYYY-MM-DD), HASH (the
passphrase's hash, which the policy page must not show).
"""
import json
import re
import os
import subprocess
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready

from web_page import browser, card, expect, figure, flash, shots, submit, wait

URL = os.environ["URL"]
CHILD = os.environ["CHILD"]
CHILD_UID = os.environ["CHILD_UID"]
STCTL = os.environ["STCTL"]
SOCKET = os.environ["SOCKET"]
SHOTS = os.environ["SHOTS"]


def as_child(*args):
    """stctl as the child, as the child would type it."""
    r = subprocess.run(["/usr/bin/setpriv", f"--reuid={CHILD_UID}", f"--regid={CHILD_UID}", "--clear-groups", STCTL, *args,
                        "--socket", SOCKET], capture_output=True, text=True, timeout=30)
    expect(r.returncode == 0, f"stctl {' '.join(args)} as the child failed: {r.stderr}")
    return r.stdout


def status():
    return json.loads(as_child("status", "--json"))


def as_parent(*args):
    """stctl as root (a parent by uid), for what the test compares the page with."""
    r = subprocess.run([STCTL, *args, "--socket", SOCKET], capture_output=True, text=True, timeout=30)
    expect(r.returncode == 0, f"stctl {' '.join(args)} as root failed: {r.stderr}")
    return r.stdout


try:
    # Without a session, the page is the login page.
    browser.get(URL + "/")
    wait.until(ready.url_contains("/login"))
    shots("login")
    # Which parent: the ledger and the child are told who answered (issue 35).
    browser.find_element(By.NAME, "parent").send_keys("mum")
    browser.find_element(By.NAME, "passphrase").send_keys(os.environ["PASSPHRASE"])
    submit(browser.find_element(By.CSS_SELECTOR, "form[action='/login'] button"))
    wait.until(ready.presence_of_element_located((By.ID, f"child-{CHILD}")))
    before = status()
    expect(figure("points").get_attribute("data-points") == str(before["balance"]),
           f"the page shows {figure('points').text} points, the daemon {before['balance']}")
    shots("login-done")

    # A child asks: the page shows it by itself (the marker set in this page survives: no reload).
    browser.execute_script("window.stillThisPage = 'yes'")
    as_child("ask", "5", "--reason", "one more level")
    request = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, f"#child-{CHILD} .request")))
    expect("one more level" in request.text, f"the request shows as {request.text!r}")
    expect(browser.execute_script("return window.stillThisPage") == "yes", "the page was loaded again to show the request")
    badge = card().find_element(By.CSS_SELECTOR, ".badge")
    expect(badge.get_attribute("data-waiting") == "1", f"the badge says {badge.text!r}")
    shots("family-request")

    # Approved in one tap: the child's status shows the minutes, paid in points.
    submit(request.find_element(By.CSS_SELECTOR, "button[value='points']"))
    said = flash()
    expect("Approved: 5 min" in said, f"approving the request (5 min, 10 points) said {said!r}")
    after = status()
    expect(after["reward_remaining_seconds"] == before["reward_remaining_seconds"] + 300,
           f"the child's redeemed time went from {before['reward_remaining_seconds']} s to {after['reward_remaining_seconds']} s, not 5 min more")
    expect(after["balance"] == before["balance"] - 10, f"the balance went from {before['balance']} to {after['balance']}, not 10 points less")
    answered = [r for r in json.loads(as_parent("requests", "--json"))["requests"] if r["state"] == "approved"]
    expect(answered and answered[0].get("by") == "mum (on the parents' page)", f"the approval is recorded as by {answered}")

    # A chore claimed by the child, approved on the page: its points are paid.
    as_child("chore", "done", "Dishes")
    chore = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, f"#child-{CHILD} .chore")))
    submit(chore.find_element(By.CSS_SELECTOR, "form[action='/chores/approve'] button"))
    said = flash()
    expect("Approved the chore Dishes" in said, f"approving the chore said {said!r}")
    expect(status()["balance"] == after["balance"] + 20, "the chore's 20 points were not paid")

    # Redeem and adjust, from the card's forms.
    balance = status()["balance"]
    browser.find_element(By.CSS_SELECTOR, f"#child-{CHILD} details.give summary").click()
    browser.find_element(By.CSS_SELECTOR, f"#child-{CHILD} form[action='/redeem'] input[name='minutes']").send_keys("5")
    submit(browser.find_element(By.CSS_SELECTOR, f"#child-{CHILD} form[action='/redeem'] button"))
    said = flash()
    expect("Redeemed 5 min" in said, f"redeeming 5 min said {said!r}")
    expect(status()["balance"] == balance - 10, "redeeming 5 min did not cost 10 points")
    browser.find_element(By.CSS_SELECTOR, f"#child-{CHILD} details.give summary").click()
    browser.find_element(By.CSS_SELECTOR, f"#child-{CHILD} form[action='/adjust'] input[name='points']").send_keys("7")
    browser.find_element(By.CSS_SELECTOR, f"#child-{CHILD} form[action='/adjust'] input[name='reason']").send_keys("helped a friend")
    submit(browser.find_element(By.CSS_SELECTOR, f"#child-{CHILD} form[action='/adjust'] button"))
    said = flash()
    expect("Adjusted" in said, f"adjusting said {said!r}")
    expect(status()["balance"] == balance - 10 + 7, "adjusting by 7 did not add 7 points")
    history = json.loads(as_parent("history", "--json"))["history"]
    expect(any(e["kind"] == "adjusted" and "helped a friend" in (e.get("note") or "") for e in history),
           "the adjustment's reason is not in the ledger")

    # A game runs: the page counts its game time down by the second, between the daemon's updates
    # (which come when the minute changes: a count cut short by one is measured again).
    game = subprocess.Popen(["/usr/bin/setpriv", f"--reuid={CHILD_UID}", f"--regid={CHILD_UID}", "--clear-groups", os.environ["GAME"], "600"])

    def seconds(text):
        parts = [int(n) for n in re.findall(r"\d+", text)]
        return sum(n * u for n, u in zip(reversed(parts), [1, 60, 3600]))
    try:
        counted = None
        for _ in range(3):
            try:
                running = wait.until(ready.presence_of_element_located(
                    (By.CSS_SELECTOR, f'#child-{CHILD} [data-figure="game-left"] [data-counting="down"]')))
                given = int(running.get_attribute("data-seconds"))
                first = running.text
                wait.until(lambda _: running.text != first)
                counted = (given, first, running.text)
                break
            except StaleElementReferenceException:
                continue
        expect(counted is not None, "the page was sent new figures three times while it was to count")
        given, first, second = counted
        went = seconds(first) - seconds(second)
        expect(1 <= went <= 3, f"the game time left went from {first!r} to {second!r}: not down by the second")
        expect(seconds(first) <= given, f"the page counted up from {given} s to {first!r}")
    finally:
        game.kill()
        game.wait()

    # The child's day and week: each chart's bars carry the report's figures. The week of the
    # imported afternoon (DAY), whatever today is.
    day = os.environ["DAY"]
    report = json.loads(as_parent("report", "--json", "--week", "--day", day))["report"]
    submit(browser.find_element(By.CSS_SELECTOR, f"#child-{CHILD} a[href='/child/{CHILD}']"))
    wait.until(ready.presence_of_element_located((By.ID, "chart-learning")))
    browser.get(f"{URL}/child/{CHILD}?day={day}")
    sessions = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, "ol.sessions"))).text
    expect("counted" in sessions, f"the day's sessions do not say what was counted: {sessions[:300]!r}")
    for day in report:
        group = browser.find_element(By.CSS_SELECTOR, f"#chart-learning g[data-day='{day['day']}']")
        counted = group.find_element(By.CSS_SELECTOR, "rect[data-kind='counted']").get_attribute("data-value")
        refused = group.find_element(By.CSS_SELECTOR, "rect[data-kind='refused']").get_attribute("data-value")
        expect(counted == str(day["learning_credited_seconds"]) and refused == str(day["learning_refused_seconds"]),
               f"{day['day']}: the learning chart shows {counted} s counted and {refused} s not, the report {day['learning_credited_seconds']} and {day['learning_refused_seconds']}")
        spent = browser.find_element(By.CSS_SELECTOR, f"#chart-points g[data-day='{day['day']}'] rect[data-kind='spent']").get_attribute("data-value")
        expect(spent == str(day["points_spent"]), f"{day['day']}: the points chart shows {spent} spent, the report {day['points_spent']}")
        if day.get("reward_used_seconds") is not None:
            played = browser.find_element(By.CSS_SELECTOR, f"#chart-game g[data-day='{day['day']}'] rect[data-kind='played']").get_attribute("data-value")
            expect(played == str(day["reward_used_seconds"]), f"{day['day']}: the game chart shows {played} s, the report {day['reward_used_seconds']}")
    learned = [d for d in report if d["learning_credited_seconds"] > 0]
    expect(learned, "the report has no day with learning: the charts were checked against nothing")
    shots("child-week")

    browser.get(URL + "/policy")
    # The policy at a glance, and the file itself behind its disclosure.
    summary = wait.until(ready.presence_of_element_located((By.ID, "policy-summary"))).text
    expect("points an hour" in summary and "The coming week" in summary, f"the policy page's summary: {summary[:400]}")
    browser.find_element(By.CSS_SELECTOR, "#policy-file summary").click()
    text = wait.until(ready.visibility_of_element_located((By.ID, "policy-text"))).text
    expect("passphrase_hash = (hidden)" in text and os.environ["HASH"] not in text, "the policy page shows the passphrase's hash")
    shots("policy")

    # Another policy, uploaded as a file, tried on the last 7 days: a row for each, nothing changed.
    tried = f"{SHOTS}/tried.toml"
    with open(tried, "w") as f:
        f.write('version = 1\ntimezone = "UTC"\n[points]\nlearning_per_hour = 120\n')
    balance = status()["balance"]
    browser.find_element(By.CSS_SELECTOR, "input[name='file']").send_keys(tried)
    submit(browser.find_element(By.CSS_SELECTOR, "form[action='/simulate'] button"))
    rows = wait.until(ready.presence_of_all_elements_located((By.CSS_SELECTOR, "table.simulation tbody tr")))
    expect(len(rows) == 7, f"the simulation shows {len(rows)} days, not 7")
    expect("learning_per_hour = 120" in browser.find_element(By.NAME, "policy").get_attribute("value"),
           "the simulated policy's text is not shown back")
    expect(status()["balance"] == balance, "simulating changed the balance")
    shots("policy-simulated")
finally:
    browser.quit()
print("web-browser.py: all expectations met")
