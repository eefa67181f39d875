#!/usr/bin/python3
"""What the parents' page refuses, over plain HTTP against the real screentime-web and daemon: nothing
but the login page without a session; no change without the form's CSRF token; a session cookie
dead after logout and after its lifetime; a daemon token worth nothing from another uid; the
security headers and cookie flags on every answer; wrong passphrases slow and then lock one
browser's login, never another's (issue 36); a refused form said as an alert in the page's words, a done one as a status. Run by WebPageTests.swift; exits 1 on the first expectation not met, saying which.

Environment: URL, SOCKET, PASSPHRASE, CHILD_UID, WEB_UID, STCTL, LIFETIME (the page's session
lifetime, seconds).
"""
import http.client
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse

URL = urllib.parse.urlsplit(os.environ["URL"])
SOCKET = os.environ["SOCKET"]
PASSPHRASE = os.environ["PASSPHRASE"]
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")


def fail(why):
    print("web-security.py: " + why, file=sys.stderr)
    sys.exit(1)


def expect(condition, why):
    if not condition:
        fail(why)


def fetch(method, path, cookies=None, form=None, source=None):
    """One request (from the loopback address `source`, else 127.0.0.1); returns (status, headers as a list of pairs, body)."""
    c = http.client.HTTPConnection(URL.hostname, URL.port, timeout=30, source_address=(source, 0) if source else None)
    headers = {}
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    body = None
    if form is not None:
        body = urllib.parse.urlencode(form)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    c.request(method, path, body=body, headers=headers)
    r = c.getresponse()
    result = (r.status, r.getheaders(), r.read().decode())
    c.close()
    return result


def header(headers, name):
    return [v for (k, v) in headers if k.lower() == name.lower()]


def set_cookie(headers, name):
    for v in header(headers, "Set-Cookie"):
        if v.startswith(name + "="):
            return v
    return None


def balance():
    r = subprocess.run([os.environ["STCTL"], "status", "--json", "--socket", SOCKET], capture_output=True, text=True, timeout=30)
    expect(r.returncode == 0, f"stctl status: {r.stderr}")
    return json.loads(r.stdout)["balance"]


def login(phrase=PASSPHRASE, source=None, cookies=None):
    status, headers, body = fetch("GET", "/login", source=source, cookies=cookies)
    expect(status == 200, f"GET /login: {status}")
    nonce = set_cookie(headers, "st_login")
    expect(nonce and "HttpOnly" in nonce and "SameSite=Strict" in nonce, f"the login form's cookie: {nonce}")
    token = re.search(r'name="csrf" value="([0-9a-f]+)"', body).group(1)
    value = nonce.split(";")[0].split("=", 1)[1]
    expect(value == token, "the login form's token is not its cookie's")
    return fetch("POST", "/login", cookies=dict(cookies or {}, st_login=value), form={"csrf": token, "passphrase": phrase, "parent": "dad"},
                 source=source)


def signed_in():
    status, headers, _ = login()
    expect(status == 303 and header(headers, "Location") == ["/"], f"logging in answered {status} {headers}")
    cookie = set_cookie(headers, "st_session")
    expect(cookie is not None, "no session cookie after logging in")
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/"]:
        expect(flag in cookie, f"the session cookie lacks {flag}: {cookie}")
    expect("Secure" not in cookie, "a Secure cookie over plain HTTP on loopback would never be sent back")
    session = {"st_session": cookie.split(";")[0].split("=", 1)[1]}
    status, _, page = fetch("GET", "/", cookies=session)
    expect(status == 200, f"the family page with a session: {status}")
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    return session, csrf, page


def as_uid(uid, request):
    """One request on the daemon's socket from `uid`: its reply."""
    code = ("import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode()+b'\\n');"
            "print(s.makefile().readline())")
    r = subprocess.run(["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "/usr/bin/python3", "-c", code,
                        SOCKET, json.dumps(dict(request, v=1))], capture_output=True, text=True, timeout=30)
    expect(r.returncode == 0, f"a request as uid {uid}: {r.stderr}")
    return json.loads(r.stdout)


# Without a session: the login page, and nothing else.
for path in ["/", "/policy", "/child/anyone", "/events", "/no-such-page"]:
    status, headers, body = fetch("GET", path)
    expect(status in (303, 404) or (path == "/events" and status == 204), f"GET {path} without a session: {status}")
    if status == 303:
        expect(header(headers, "Location") == ["/login"], f"GET {path} without a session goes to {header(headers, 'Location')}")
    expect("data-points" not in body and "child-" not in body, f"GET {path} without a session shows a child")
before = balance()
for path in ["/redeem", "/adjust", "/requests/approve", "/chores/approve", "/screen-bonus", "/bedtime", "/free-day", "/logout"]:
    status, _, _ = fetch("POST", path, form={"child": "x", "minutes": "5", "points": "100", "reason": "x"})
    expect(status == 403, f"POST {path} without a session: {status}")
expect(balance() == before, "a form without a session changed the balance")

# Every answer carries the security headers.
for path in ["/login", "/", "/static/style.css", "/no-such-page"]:
    _, headers, _ = fetch("GET", path)
    expect(header(headers, "Content-Security-Policy") == [CSP], f"GET {path}: Content-Security-Policy {header(headers, 'Content-Security-Policy')}")
    expect(header(headers, "X-Content-Type-Options") == ["nosniff"], f"GET {path}: no X-Content-Type-Options")
    expect(header(headers, "X-Frame-Options") == ["DENY"], f"GET {path}: no X-Frame-Options")
    expect(header(headers, "Referrer-Policy") == ["no-referrer"], f"GET {path}: no Referrer-Policy")

# With a session: a form without its token, or with another, is refused and changes nothing.
session, csrf, page = signed_in()
expect('name="csrf"' in page, "the family page's forms carry no token")
child = re.search(r'name="child" value="([^"]+)"', page).group(1)
for form in [{"child": child, "minutes": "5"}, {"child": child, "minutes": "5", "csrf": "0" * 64}, {"child": child, "minutes": "5", "csrf": ""}]:
    status, _, body = fetch("POST", "/redeem", cookies=session, form=form)
    expect(status == 403 and "token" in body, f"redeem with csrf={form.get('csrf')!r}: {status}")
expect(balance() == before, "a form without its token changed the balance")
status, headers, _ = fetch("POST", "/redeem", cookies=session, form={"child": child, "minutes": "1", "csrf": csrf, "rid": "r1"})
expect(status == 303 and balance() == before - 2, f"redeem with the token: {status}, balance {balance()} (was {before})")
# The same form sent twice (a double tap) is carried out once.
fetch("POST", "/redeem", cookies=session, form={"child": child, "minutes": "1", "csrf": csrf, "rid": "r1"})
expect(balance() == before - 2, "a form sent twice was carried out twice")

# What a form did, or why it did nothing, is said once on the family page: a refusal as an alert,
# in the page's words, never in the green box of what was done.
status, _, _ = fetch("POST", "/redeem", cookies=session, form={"child": child, "minutes": "100000", "csrf": csrf, "rid": "r-too-much"})
expect(status == 303 and balance() == before - 2, f"a redemption the balance cannot pay: {status}, balance {balance()} (was {before - 2})")
_, _, page = fetch("GET", "/", cookies=session)
alert = re.search(r'<p class="error" role="alert">([^<]*)</p>', page)
expect(alert is not None and 'class="flash"' not in page, f"the refusal is not an alert: {page[:1500]}")
expect(alert.group(1) == f"Not redeemed: it costs 200000 points and the balance is {before - 2}.", f"the refusal says {alert.group(1)!r}")
_, _, page = fetch("GET", "/", cookies=session)
expect('role="alert"' not in page, "the refusal is shown again on the next page")
fetch("POST", "/redeem", cookies=session, form={"child": child, "minutes": "1", "csrf": csrf, "rid": "r3"})
_, _, page = fetch("GET", "/", cookies=session)
done = re.search(r'<p class="flash" role="status">([^<]*)</p>', page)
expect(done is not None and done.group(1).startswith("Redeemed 1 min for ") and 'role="alert"' not in page, f"a redemption done: {page[:1500]}")
before -= 2

# The session cookie is not the daemon's token; and a token is worth nothing from another uid.
reply = as_uid(os.environ["CHILD_UID"], {"command": "adjust", "points": 100, "reason": "mine", "token": session["st_session"], "user": child})
expect(not reply["ok"], f"the cookie, sent to the daemon as a token by the child: {reply}")
web = as_uid(os.environ["WEB_UID"], {"command": "login", "passphrase": PASSPHRASE, "minutes": 5, "parent": "dad"})
# Which parent is asked, from the policy's [parents] users; another name is refused.
nameless = as_uid(os.environ["WEB_UID"], {"command": "login", "passphrase": PASSPHRASE, "minutes": 5})
expect(not nameless["ok"] and nameless["error"] == "say which parent you are: dad, mum", f"a login without a parent's name: {nameless}")
stranger = as_uid(os.environ["WEB_UID"], {"command": "login", "passphrase": PASSPHRASE, "minutes": 5, "parent": "grandpa"})
expect(not stranger["ok"] and "grandpa is not one of the parents the policy names (dad, mum)" in stranger["error"], f"a login as grandpa: {stranger}")
expect(web["ok"] and web.get("token"), f"login on the socket as the page's uid: {web}")
stolen = as_uid(os.environ["CHILD_UID"], {"command": "adjust", "points": 100, "reason": "mine", "token": web["token"]})
expect(not stolen["ok"] and "parent session is over" in stolen["error"], f"the page's token used by the child's uid: {stolen}")
expect(balance() == before - 2, "the child changed the balance with a token")

# Logout: the cookie stops working, at once and for forms too.
status, headers, _ = fetch("POST", "/logout", cookies=session, form={"csrf": csrf})
expect(status == 303 and header(headers, "Location") == ["/login"], f"logout: {status}")
expect("Max-Age=0" in (set_cookie(headers, "st_session") or ""), "logout does not clear the cookie")
status, headers, _ = fetch("GET", "/", cookies=session)
expect(status == 303 and header(headers, "Location") == ["/login"], f"the family page after logout: {status}")
status, _, _ = fetch("POST", "/redeem", cookies=session, form={"child": child, "minutes": "1", "csrf": csrf, "rid": "r2"})
expect(status == 403 and balance() == before - 2, f"a form after logout: {status}")

# After its lifetime, the cookie stops working by itself.
session, csrf, _ = signed_in()
time.sleep(int(os.environ["LIFETIME"]) + 1)
status, headers, _ = fetch("GET", "/", cookies=session)
expect(status == 303 and header(headers, "Location") == ["/login"], f"the family page after the session's lifetime: {status}")

# A parent logs in at the computer 127.0.0.2 first: that browser gets a cookie of its own.
status, headers, _ = login(source="127.0.0.2")
expect(status == 303, f"the parent's login at 127.0.0.2: {status}")
browser = set_cookie(headers, "st_browser")
expect(browser and "HttpOnly" in browser, f"the browser's cookie: {browser}")
parents_browser = {"st_browser": browser.split(";")[0].split("=", 1)[1]}

# A child at the same computer, without that cookie, guesses: each wrong passphrase makes that
# browser (its address) wait longer, 1 s, 2 s, 4 s, 8 s; a try too soon is not even checked.
for left, wait in [(4, 1), (3, 2), (2, 4), (1, 8)]:
    status, _, body = login("not the passphrase", source="127.0.0.2")
    expect(status == 401 and f"({left} more {'try' if left == 1 else 'tries'} before a 15-minute lock)" in body, f"wrong passphrase with {left} left: {status} {body[:400]}")
    status, _, body = login("too soon", source="127.0.0.2")
    expect(status == 401 and f"Wait {wait} second" in body, f"a try at once after a wrong one: {status} {body[:400]}")
    time.sleep(wait + 0.2)
status, _, body = login("still not it", source="127.0.0.2")
expect(status == 401 and "that was the fifth" in body, f"the fifth wrong passphrase: {body[:400]}")
time.sleep(16.2)
status, _, body = login(source="127.0.0.2")
expect(status == 401 and "locked for 15 more minutes" in body, f"the right passphrase after five wrong ones: {status} {body[:400]}")
# Meanwhile the parents are not locked out: the one whose browser it was, at that computer, and one at another.
status, _, body = login(source="127.0.0.2", cookies=parents_browser)
expect(status == 303, f"the parent's own browser at 127.0.0.2 after the child's guesses: {status} {body[:400]}")
asked = time.monotonic()
status, _, body = login(source="127.0.0.1")
expect(status == 303 and time.monotonic() - asked < 5, f"a parent at 127.0.0.1 after the child's guesses: {status} {body[:400]}")
print("web-security.py: all expectations met")
