#!/usr/bin/python3
"""A parent changes the rules from the parents' page in a real headless Chromium at a phone's
width (390 px), against the real system daemon (WebPageTests.policyEditing): sorts a program the
child used into learning in one tap, and the daemon credits the child's next session of it;
changes the school-day game limit and the bedtime, sees them before and after, applies, then
undoes; adds a chore that the child then claims. The policy file on disk keeps its comments and
passes `stctl policy check`; the history names the parent. It fails (exit 1) on the first
expectation not met, saying which. The browser and its checks are web_page.py's.

Environment: URL, PASSPHRASE, CHILD, CHILD_UID, STCTL, SOCKET, SHOTS, POLICY (the child's policy
file), ORIGINAL (a copy of it as the test wrote it), APP (the program the child runs, which no
rule names), STATE (the child's state database, to see the daemon has seen a process).
"""
import json
import os
import random
import socket
import subprocess
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from web_page import browser, expect, fail, flash, log_in, no_overflow, shots, submit, wait

URL = os.environ["URL"]
CHILD = os.environ["CHILD"]
CHILD_UID = os.environ["CHILD_UID"]
STCTL = os.environ["STCTL"]
SOCKET = os.environ["SOCKET"]
POLICY = os.environ["POLICY"]
APP = os.environ["APP"]
APP_NAME = os.path.basename(APP)


def stctl(*args, as_child=False):
    prefix = ["/usr/bin/setpriv", f"--reuid={CHILD_UID}", f"--regid={CHILD_UID}", "--clear-groups"] if as_child else []
    r = subprocess.run(prefix + [STCTL, *args, "--socket", SOCKET] + ([] if as_child else ["--user", CHILD]),
                       capture_output=True, text=True, timeout=30)
    expect(r.returncode == 0, f"stctl {' '.join(args)} failed: {r.stderr}")
    return r.stdout


def phone():
    """The viewport 390 px wide, as on a phone."""
    browser.set_window_size(390, 844)
    inner = browser.execute_script("return window.innerWidth")
    if inner != 390:
        browser.set_window_size(390 + (390 - inner), 844)
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return window.innerWidth") == 390)


def comments(text):
    return [line.strip() for line in text.splitlines() if line.strip().startswith("#")]


def policy_file():
    with open(POLICY) as f:
        return f.read()


def file_is_whole():
    """The file as the daemon wrote it: every comment of the parent's file, and no problem."""
    with open(os.environ["ORIGINAL"]) as f:
        original = f.read()
    expect(comments(policy_file()) == comments(original), "the policy file lost or changed comments")
    r = subprocess.run([STCTL, "policy", "check", POLICY], capture_output=True, text=True, timeout=30)
    expect(r.returncode == 0, f"stctl policy check of the changed file: {r.stdout}{r.stderr}")


def setting(key):
    return browser.find_element(By.CSS_SELECTOR, f'#limits input[data-key="{key}"]')


def learn_with(pid, seconds):
    """A session of the program in front with input, as a desktop hook of root's reports it: a
    key now and then, 0.3 to 1.5 s apart."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(SOCKET)
    f = s.makefile("rb")

    def send(event):
        s.sendall((json.dumps({"v": 1, "command": "hook_event", "hook": "x11", "user": CHILD, "event": json.dumps(event)}) + "\n").encode())
        reply = json.loads(f.readline())
        expect(reply.get("ok"), f"the daemon refused the hook's {event['event']}: {reply}")
    send({"event": "focus_changed", "pid": pid, "app_id": APP_NAME, "title": APP_NAME})
    end = time.monotonic() + seconds
    rhythm = random.Random(7)     # as a person types: not a jiggler's even beat (periodic_input)
    while time.monotonic() < end:
        send({"event": "input", "count": 1})
        time.sleep(0.3 + rhythm.random() * 1.2)
    s.close()


def seen(pid):
    """Waits until the daemon has logged the process's start."""
    query = f"SELECT count(*) FROM event WHERE line LIKE '%\"process_started\",\"pid\":{pid},%'"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r = subprocess.run(["/usr/bin/sqlite3", os.environ["STATE"], query], capture_output=True, text=True)
        if r.stdout.strip() == "1":
            return
        time.sleep(0.1)
    fail(f"the daemon did not see {APP_NAME} (pid {pid}) start")


try:
    phone()
    log_in(URL)
    browser.get(URL + f"/policy?child={CHILD}")

    # The program the child used, which no rule names: one tap makes it learning.
    row = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, f'li.unsorted[data-name="{APP_NAME}"]')))
    no_overflow("the policy page at 390 px")
    submit(row.find_element(By.CSS_SELECTOR, "button[value='learning']"))
    said = flash()
    expect(f"{APP_NAME} is learning now" in said, f"sorting said {said!r}")
    expect(not browser.find_elements(By.CSS_SELECTOR, f'li.unsorted[data-name="{APP_NAME}"]'), "the sorted program is still offered for sorting")
    text = policy_file()
    expect(f'name = "{APP_NAME}"\ncategory = "learning"\nexe = ["{APP}"]' in text, f"the policy file has no learning entry for {APP}:\n{text[-400:]}")
    file_is_whole()

    # The next session of it earns.
    app = subprocess.Popen(["/usr/bin/setpriv", f"--reuid={CHILD_UID}", f"--regid={CHILD_UID}", "--clear-groups", APP, "600"])
    try:
        seen(app.pid)
        learn_with(app.pid, 14)
    finally:
        app.kill()
        app.wait()
    deadline = time.monotonic() + 60
    credited = []
    while time.monotonic() < deadline and not credited:
        sessions = json.loads(stctl("sessions", "--json"))["sessions"]
        # (Credited seconds: at the bundled 60 points an hour, 14 s earn no whole point.)
        credited = [s for s in sessions if s["app"] == APP_NAME and s["credited_seconds"] >= 10]
        time.sleep(0.2)
    expect(credited and credited[0]["category"] == "learning", f"the session after sorting earned nothing: {sessions}")

    # The school days' game limit and the bedtime: before and after, applied, then undone.
    before = policy_file()
    phone()
    browser.get(URL + f"/policy?child={CHILD}")
    limit, hours = setting("schedules[School days].daily_limit"), setting("screen.allowed_hours")
    expect(limit.get_attribute("value") == "1h" and hours.get_attribute("value") == "07:00-20:30",
           f"the form shows {limit.get_attribute('value')!r} and {hours.get_attribute('value')!r}")
    limit.clear()
    limit.send_keys("45m")
    hours.clear()
    hours.send_keys("07:00-21:00")
    submit(browser.find_element(By.CSS_SELECTOR, "#limits button[type='submit']"))
    rows = [[r.get_attribute("data-key")] + [c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")]
            for r in browser.find_elements(By.CSS_SELECTOR, "#preview tbody tr")]
    # (In the form's order: the whole week's rules, then each schedule's; each rule in a parent's
    # words, its key beside for a script.)
    expect(rows == [["screen.allowed_hours", "The computer at these hours (the last end is bedtime)", "07:00-20:30", "07:00-21:00"],
                    ["schedules[School days].daily_limit", "Games a day on School days", "1h", "45m"]],
           f"the preview shows {rows}")
    expect(policy_file() == before, "the preview changed the file")
    no_overflow("the preview at 390 px")
    shots("policy-preview")
    phone()
    submit(browser.find_element(By.CSS_SELECTOR, "#preview button[type='submit']"))
    said = flash()
    expect("Changed" in said and "in force now" in said, f"applying said {said!r}")
    after = policy_file()
    expect('daily_limit = "45m"' in after and 'allowed_hours = ["07:00-21:00"]' in after, f"the file after applying:\n{after}")
    file_is_whole()
    change = browser.find_elements(By.CSS_SELECTOR, "#history li.change")[0]
    expect("mum (on the parents' page)" in change.text, f"the history says {change.text!r}")
    shots("policy-edit")
    phone()
    submit(browser.find_elements(By.CSS_SELECTOR, "#history li.change")[0].find_element(By.CSS_SELECTOR, "button"))
    said = flash()
    expect("is undone" in said, f"undoing said {said!r}")
    expect(policy_file() == before, "undoing did not give the file back as it was")
    undone = browser.find_elements(By.CSS_SELECTOR, "#history li.change")[1]
    expect("Undone by change" in undone.text, f"the undone change says {undone.text!r}")

    # A chore added, which the child then claims.
    browser.find_element(By.NAME, "chore-name").send_keys("Feed the cat")
    points = browser.find_element(By.NAME, "chore-points")
    points.clear()
    points.send_keys("25")
    submit(browser.find_element(By.CSS_SELECTOR, "#new-chore button[type='submit']"))
    rows = [[r.get_attribute("data-key")] + [c.text for c in r.find_elements(By.CSS_SELECTOR, "th, td")]
            for r in browser.find_elements(By.CSS_SELECTOR, "#preview tbody tr")]
    expect(rows == [["chores[Feed the cat].points", "Points for the chore Feed the cat", "not set", "25"],
                    ["chores[Feed the cat].every", "How often the chore Feed the cat may be done", "not set", "day"]], f"the chore's preview shows {rows}")
    submit(browser.find_element(By.CSS_SELECTOR, "#preview button[type='submit']"))
    expect("Changed" in flash(), "adding the chore")
    claimed = stctl("chore", "done", "Feed the cat", as_child=True)
    expect("Feed the cat" in claimed, f"the child's claim said {claimed!r}")
    file_is_whole()
    phone()
    no_overflow("the policy page after the changes, at 390 px")
finally:
    browser.quit()
