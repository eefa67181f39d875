#!/usr/bin/python3
"""Screen time on the parents' page in a real headless Chromium, against the real system daemon
with a [screen] policy (daily_limit 2 h, allowed_hours 07:00-20:30, in a zone where it is about
noon) and no login session of the child (so nothing is used while the test runs): the family page
shows screen time left and bedtime as the policy gives them; each of the three buttons pressed
changes what the daemon says (more screen time: left grows by the minutes; bedtime: moved to the
time typed; free day: on, with no limit left), the child's ask for screen minutes given in one
tap, and a refusal of the daemon is shown in the page's
words; the child's week chart shows today's screen time against its limit and the bonus; no
sideways scrolling at 390 px. Run by WebPageTests.swift; exit 1 on the first expectation not met.

Environment: URL, PASSPHRASE, CHILD, CHILD_UID, STCTL, SOCKET, SHOTS, LIMIT (the policy's daily
limit, seconds), BEDTIME (the policy's end of allowed hours, HH:MM).
"""
import json
import os
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready

from web_page import alert, browser, card, expect, figure, flash, log_in, shots, submit, wait

URL = os.environ["URL"]
CHILD = os.environ["CHILD"]
CHILD_UID = os.environ["CHILD_UID"]
STCTL = os.environ["STCTL"]
SOCKET = os.environ["SOCKET"]
LIMIT = int(os.environ["LIMIT"])
BEDTIME = os.environ["BEDTIME"]

BONUS_MINUTES = 15
ASKED_MINUTES = 10
NEW_BEDTIME = ("0915PM", "21:15")      # as typed into an en-US time field, and what it is


def stctl(*args, child=True):
    """stctl as the child (or as root, a parent by uid), for what the test compares the page with."""
    who = ["/usr/bin/setpriv", f"--reuid={CHILD_UID}", f"--regid={CHILD_UID}", "--clear-groups"] if child else []
    r = subprocess.run(who + [STCTL, *args, "--socket", SOCKET], capture_output=True, text=True, timeout=30)
    expect(r.returncode == 0, f"stctl {' '.join(args)} failed: {r.stderr}")
    return r.stdout


def screen():
    """The daemon's screen time figures (status.screen), and the moment they are for."""
    s = json.loads(stctl("status", "--json"))
    expect("screen" in s, f"the daemon's status has no screen time: {s}")
    return s["screen"], s["as_of"]


def open_screen_panel():
    panel = card().find_element(By.CSS_SELECTOR, "details.screen")
    if not panel.get_attribute("open"):
        panel.find_element(By.TAG_NAME, "summary").click()
    return panel


def form(action):
    return card().find_element(By.CSS_SELECTOR, f"form[action='/{action}']")


try:
    log_in(URL)

    # What the policy gives: no session, so nothing used; all of the daily limit left (bedtime is
    # hours away at noon); bedtime at the end of the allowed hours.
    before, as_of = screen()
    today = as_of[:10]
    expect(before["used_today_seconds"] == 0 and before["left_seconds"] == LIMIT and before["limit"] == "screen_daily_limit",
           f"the daemon's screen time is not the policy's untouched day: {before}")
    expect(before["bedtime"].startswith(f"{today}T{BEDTIME}:00"), f"the daemon's bedtime is {before['bedtime']}, not {BEDTIME} today")
    expect(figure("screen-left").get_attribute("data-seconds") == str(LIMIT),
           f"the page shows {figure('screen-left').text!r} of screen time left, not the limit's {LIMIT} s")
    limit_words = f"{LIMIT // 3600} h {LIMIT % 3600 // 60:02d} min"       # HTML.duration's words
    expect(figure("screen-used").get_attribute("data-seconds") == "0" and f" of {limit_words}" in figure("screen-used").text,
           f"the page shows {figure('screen-used').text!r} used, not nothing of {limit_words}")
    expect(figure("bedtime").text == BEDTIME, f"the page shows bedtime {figure('bedtime').text!r}, not {BEDTIME}")
    expect(card().find_elements(By.CSS_SELECTOR, '[data-figure="game-left"]'), "game time is not shown beside screen time")
    open_screen_panel()
    shots("family-screen")

    # The three forms are the session's: sent from this page without the token (a script's
    # fetch, with the page's cookie), each is refused and changes nothing.
    for action, fields in [("screen-bonus", "minutes=5"), ("bedtime", "until=23:00"), ("free-day", "sure=yes")]:
        status = browser.execute_async_script("""
            var done = arguments[arguments.length - 1];
            fetch("/" + arguments[0], {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"},
                                      body: "child=" + encodeURIComponent(arguments[1]) + "&" + arguments[2], redirect: "manual"})
              .then(function (r) { done(r.status); }, function (e) { done(String(e)); });""", action, CHILD, fields)
        expect(status == 403, f"/{action} without the form's token was answered {status}")
    expect(screen()[0] == before, f"forms without their token changed screen time: {screen()[0]} (was {before})")

    # A refusal of the daemon, in the page's words: more minutes than a day has (a browser that
    # did not hold to the field's max sends them; the daemon refuses, and nothing is given).
    open_screen_panel()
    browser.execute_script("arguments[0].removeAttribute('max')", form("screen-bonus").find_element(By.NAME, "minutes"))
    form("screen-bonus").find_element(By.NAME, "minutes").send_keys("2000")
    submit(form("screen-bonus").find_element(By.CSS_SELECTOR, "button"))
    said = alert()
    expect(said == "Not done: bonus needs minutes from 1 to 1440 (a day); nothing was given.", f"2000 minutes were answered {said!r}")
    expect(screen()[0]["bonus_seconds"] == 0, "2000 minutes were refused, but the daemon gave some")

    # More screen time today: left grows by the minutes, as the daemon says and the page shows.
    open_screen_panel()
    form("screen-bonus").find_element(By.NAME, "minutes").send_keys(str(BONUS_MINUTES))
    form("screen-bonus").find_element(By.NAME, "reason").send_keys("finished homework early")
    submit(form("screen-bonus").find_element(By.CSS_SELECTOR, "button"))
    said = flash()
    expect(f"{BONUS_MINUTES} min of screen time" in said, f"more screen time said {said!r}")
    after, _ = screen()
    expect(after["left_seconds"] == before["left_seconds"] + BONUS_MINUTES * 60 and after["bonus_seconds"] == BONUS_MINUTES * 60,
           f"screen time left went from {before['left_seconds']} s to {after['left_seconds']} s (bonus {after['bonus_seconds']} s), "
           f"not {BONUS_MINUTES} min more")
    expect(figure("screen-left").get_attribute("data-seconds") == str(LIMIT + BONUS_MINUTES * 60),
           f"the page shows {figure('screen-left').text!r} left after the bonus")
    expect(f"+ {BONUS_MINUTES} min bonus" in figure("screen-used").text, f"the page shows {figure('screen-used').text!r} used")

    # Tonight's bedtime, typed into the time field.
    open_screen_panel()
    field = form("bedtime").find_element(By.NAME, "until")
    field.send_keys(NEW_BEDTIME[0])
    expect(field.get_attribute("value") == NEW_BEDTIME[1], f"the time field holds {field.get_attribute('value')!r}")
    submit(form("bedtime").find_element(By.CSS_SELECTOR, "button"))
    said = flash()
    expect(f"Bedtime tonight for {CHILD} is {NEW_BEDTIME[1]}" in said, f"moving bedtime said {said!r}")
    moved, _ = screen()
    expect(moved["bedtime"].startswith(f"{today}T{NEW_BEDTIME[1]}:00"), f"the daemon's bedtime is {moved['bedtime']}, not {NEW_BEDTIME[1]} today")
    expect(moved["left_seconds"] == after["left_seconds"], "moving bedtime later changed the screen time left (the daily limit bounds it)")
    expect(figure("bedtime").text == NEW_BEDTIME[1], f"the page shows bedtime {figure('bedtime').text!r}")

    # The child asks for screen minutes: the page says so and gives them in one tap, free.
    browser.execute_script("window.stillThisPage = 'yes'")
    stctl("ask", str(ASKED_MINUTES), "--screen", "--reason", "finish my project")
    request = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, f"#child-{CHILD} .request")))
    expect(f"{ASKED_MINUTES} min of screen time" in request.text and "finish my project" in request.text, f"the request shows as {request.text!r}")
    expect(browser.execute_script("return window.stillThisPage") == "yes", "the page was loaded again to show the request")
    submit(request.find_element(By.CSS_SELECTOR, "button[value='screen']"))
    said = flash()
    expect(f"Approved: {ASKED_MINUTES} min for {CHILD}, as screen time for today" in said, f"giving the asked minutes said {said!r}")
    given, _ = screen()
    expect(given["left_seconds"] == moved["left_seconds"] + ASKED_MINUTES * 60 and given["bonus_seconds"] == (BONUS_MINUTES + ASKED_MINUTES) * 60,
           f"after the child's ask was answered the daemon says {given}")
    expect(json.loads(stctl("status", "--json"))["balance"] == 0, "the screen minutes asked for cost points")
    EXTRA = (BONUS_MINUTES + ASKED_MINUTES) * 60

    # The child's week: today's screen time against the limit, and the limit with the parents'
    # extra minutes; the same as the daemon's report.
    report = json.loads(stctl("report", "--json", "--week", child=False))["report"]
    day = report[-1]
    expect(day["day"] == today, f"the report's last day is {day['day']}, not today {today}")
    expect(day.get("screen_used_seconds") == 0 and day.get("screen_limit_seconds") == LIMIT and day.get("screen_bonus_seconds") == EXTRA,
           f"the daemon's report of today's screen time is {day}")
    browser.get(f"{URL}/child/{CHILD}")
    group = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, f"#chart-screen g[data-day='{today}']")))
    used = group.find_element(By.CSS_SELECTOR, "rect[data-kind='used']").get_attribute("data-value")
    limit = group.find_element(By.CSS_SELECTOR, "line[data-kind='limit']").get_attribute("data-seconds")
    bonus = group.find_element(By.CSS_SELECTOR, "line[data-kind='bonus']").get_attribute("data-seconds")
    expect((used, limit, bonus) == ("0", str(LIMIT), str(LIMIT + EXTRA)),
           f"today's screen chart shows {used} s used against {limit} s, {bonus} s with the bonus")
    shots("child-screen")
    browser.get(URL + "/")
    wait.until(ready.presence_of_element_located((By.ID, f"child-{CHILD}")))

    # A free day is not given without its tick: the browser holds the form back...
    open_screen_panel()
    sure = form("free-day").find_element(By.NAME, "sure")
    expect(not browser.execute_script("return arguments[0].checkValidity()", form("free-day")) and
           browser.execute_script("return arguments[0].validity.valueMissing", sure), "the browser would send the free day without its tick")
    # ...and the page refuses one sent without it (a browser that ignores `required`).
    browser.execute_script("arguments[0].removeAttribute('required')", sure)
    submit(form("free-day").find_element(By.CSS_SELECTOR, "button"))
    said = alert()
    expect(said.startswith("Not a free day yet: tick"), f"a free day without its tick was answered {said!r}")
    expect(screen()[0]["free_day"] is False, "a free day without its tick was given")

    # With the tick: a free day, no limit left; the page says so.
    open_screen_panel()
    form("free-day").find_element(By.NAME, "reason").send_keys("birthday")
    form("free-day").find_element(By.NAME, "sure").click()
    submit(form("free-day").find_element(By.CSS_SELECTOR, "button"))
    said = flash()
    expect(said.startswith("A free day for"), f"the free day said {said!r}")
    free, _ = screen()
    expect(free["free_day"] is True and free.get("left_seconds") is None, f"after the free day the daemon says {free}")
    expect(figure("screen-left").text == "no limit: a free day", f"the page shows {figure('screen-left').text!r} after the free day")
    expect(not card().find_elements(By.CSS_SELECTOR, "form[action='/free-day']"), "the free day's form is still offered on a free day")
    shots("family-free-day")
finally:
    browser.quit()
print("web-screen.py: all expectations met")
