#!/usr/bin/python3
"""The parents' page in the browser's language (issue #41), in a real headless Chromium whose
language (and so its Accept-Language) is BROWSER_LANG (de or es), against the real system daemon
with an imported afternoon (DAY): the login page, the family page (and a form's answer), the
child's day with its week's charts, each in that language with <html lang> saying so; then a
language chosen on the page (kept in a cookie) over the browser's, on the next pages too, English
included, and the browser's own language chosen back. Run by WebPageLanguageTests.swift; exit 1 on
the first expectation not met.

Environment: URL, PASSPHRASE, CHILD, SHOTS, DAY (a Monday, 2026-11-23), BROWSER_LANG, AXE.
The words expected are what the catalogs (po/de.po, po/es.po) mean, written here by hand.
"""
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready

from web_page import BROWSER_LANG, browser, card, expect, fail, flash, gone, log_in, shots, submit, wait

URL = os.environ["URL"]
CHILD = os.environ["CHILD"]
DAY = os.environ["DAY"]

WORDS = {
    "de": {
        "login": ["Welcher Elternteil bist du?", "Passwort der Eltern"], "log in": "Anmelden",
        "family": "Familie", "figures": ["Spielzeit heute noch übrig", "Punkte", "Heute gelernt", "Gerade benutzt"], "log out": "Abmelden",
        "give": "Punkte einlösen oder ändern", "adjusted": f"Punkte von {CHILD} um 5 geändert: jetzt ",
        "day": "Montag, 23. November 2026", "week": "Die Woche bis 23. November 2026", "monday": "Mo 23.", "sunday": "So 22.",
        "learning": "Lernen: gezählt und nicht gezählt", "legend": ["gezählt", "nicht gezählt"],
        "points": "Verdiente (und geschenkte) Punkte und ausgegebene Punkte", "counted": "gezählt", "table day": "Tag",
        "name": "Deutsch",
    },
    "es": {
        "login": ["¿Quién de los padres eres?", "Contraseña de los padres"], "log in": "Entrar",
        "family": "Familia", "figures": ["Tiempo de juego que queda hoy", "Puntos", "Aprendizaje de hoy", "Ahora usa"], "log out": "Cerrar sesión",
        "give": "Canjear o ajustar puntos", "adjusted": f"Puntos de {CHILD} ajustados en 5: ahora tiene ",
        "day": "Lunes, 23 de noviembre de 2026", "week": "La semana hasta el 23 de noviembre de 2026", "monday": "lun 23", "sunday": "dom 22",
        "learning": "Aprendizaje: lo que contó y lo que no", "legend": ["contó", "no contó"],
        "points": "Puntos ganados (y regalados) frente a puntos gastados", "counted": "contaron", "table day": "Día",
        "name": "Español",
    },
}
ENGLISH = {"family": "Family", "log out": "Log out", "day": f"Monday {DAY}", "monday": "Mon 23"}

if BROWSER_LANG not in WORDS:
    fail(f"BROWSER_LANG is {BROWSER_LANG!r}: this script knows the words of {sorted(WORDS)}")
W = WORDS[BROWSER_LANG]
OTHER = "es" if BROWSER_LANG == "de" else "de"


def lang():
    return browser.find_element(By.TAG_NAME, "html").get_attribute("lang")


def texts(selector):
    return [e.text for e in browser.find_elements(By.CSS_SELECTOR, selector)]


def choose(code):
    """Presses the page's link to another language (its footer): the same page comes back in it."""
    old = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.CSS_SELECTOR, f"footer a[hreflang='{code}']").click()
    wait.until(gone(old))
    expect(lang() == code, f"after choosing {code} the page is <html lang={lang()!r}>")


def day_page(words, where):
    """The child's day and its week's charts, in `words`."""
    heading = wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, "main.day h2"))).text
    expect(heading == words["day"], f"{where}: the day's heading is {heading!r}, not {words['day']!r}")
    labels = texts("#chart-learning text.day")
    expect(words["monday"] in labels, f"{where}: the learning chart's days are {labels}, without {words['monday']!r}")


try:
    # The browser says what it asks for (its Accept-Language), before the page is asked anything.
    browser.get(URL + "/login")
    asked = browser.execute_script("return navigator.languages")
    expect(asked and asked[0].startswith(BROWSER_LANG), f"Chromium's languages are {asked}, not {BROWSER_LANG} first")
    expect(lang() == BROWSER_LANG, f"the login page is <html lang={lang()!r}> for a browser that asks for {BROWSER_LANG}")
    page = browser.find_element(By.TAG_NAME, "main").text
    for words in W["login"]:
        expect(words in page, f"the login page does not say {words!r}: {page!r}")
    button = browser.find_element(By.CSS_SELECTOR, "form[action='/login'] button").text
    expect(button == W["log in"], f"the login button says {button!r}, not {W['log in']!r}")

    log_in(URL)
    expect(lang() == BROWSER_LANG, f"the family page is <html lang={lang()!r}>")
    expect(browser.title.startswith(W["family"] + " "), f"the family page's title is {browser.title!r}")
    terms = [e.text for e in card().find_elements(By.CSS_SELECTOR, "dt")]
    for words in W["figures"]:
        expect(words in terms, f"the child's card says {terms}, without {words!r}")
    logout = browser.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").text
    expect(logout == W["log out"], f"the log-out button says {logout!r}")
    shots(f"family-{BROWSER_LANG}")

    # A form's answer in the same language.
    give = card().find_element(By.CSS_SELECTOR, "details.give")
    summary = give.find_element(By.TAG_NAME, "summary")
    expect(summary.text == W["give"], f"the points panel is {summary.text!r}")
    summary.click()
    adjust = give.find_element(By.CSS_SELECTOR, "form[action='/adjust']")
    adjust.find_element(By.NAME, "points").send_keys("5")
    adjust.find_element(By.NAME, "reason").send_keys("Lesen")
    submit(adjust.find_element(By.TAG_NAME, "button"))
    said = flash()
    expect(said.startswith(W["adjusted"]), f"after adjusting the points the page says {said!r}, not {W['adjusted']!r}…")

    # The child's day (the imported Monday) and the week's charts.
    browser.get(f"{URL}/child/{CHILD}?day={DAY}")
    expect(lang() == BROWSER_LANG, f"the day page is <html lang={lang()!r}>")
    day_page(W, "the day page")
    headings = texts("main.day h2")
    expect(W["week"] in headings, f"the week's heading is not {W['week']!r}: {headings}")
    sessions = browser.find_element(By.CSS_SELECTOR, "ol.sessions").text
    expect(W["counted"] in sessions, f"the day's sessions do not say what was counted in {BROWSER_LANG}: {sessions[:300]!r}")
    expect(W["sunday"] in texts("#chart-points text.day"), f"the points chart's days are {texts('#chart-points text.day')}")
    captions = texts("figure.chart figcaption")
    expect(any(c.startswith(W["learning"]) for c in captions), f"the learning chart's caption is not {W['learning']!r}: {captions}")
    expect(any(c.startswith(W["points"]) for c in captions), f"the points chart's caption is not {W['points']!r}: {captions}")
    legend = texts("figure.chart .legend .key")
    for words in W["legend"]:
        expect(words in legend, f"the legends are {legend}, without {words!r}")
    column = browser.execute_script("return document.querySelector('.sr-only th[scope=col]').textContent")
    expect(column == W["table day"], f"the charts' table for screen readers begins with {column!r}")
    shots(f"child-week-{BROWSER_LANG}")

    # A language chosen on the page wins over the browser's, here and on the next pages.
    choose(OTHER)
    day_page(WORDS[OTHER], f"the day page after choosing {OTHER}")
    browser.get(URL + "/")
    wait.until(ready.presence_of_element_located((By.ID, f"child-{CHILD}")))
    expect(lang() == OTHER and browser.title.startswith(WORDS[OTHER]["family"] + " "),
           f"the family page after choosing {OTHER} is <html lang={lang()!r}>, {browser.title!r}")
    strong = browser.find_element(By.CSS_SELECTOR, "footer strong").text
    expect(strong == WORDS[OTHER]["name"], f"the language shown is {strong!r} in the footer, not {WORDS[OTHER]['name']!r}")
    choose("en")
    logout = browser.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").text
    expect(browser.title.startswith(ENGLISH["family"] + " ") and logout == ENGLISH["log out"], f"in English: {browser.title!r}, {logout!r}")
    browser.get(f"{URL}/child/{CHILD}?day={DAY}")
    expect(lang() == "en", f"the day page after choosing English is <html lang={lang()!r}>")
    day_page(ENGLISH, "the day page in English")
    # And back to the browser's own.
    choose(BROWSER_LANG)
    day_page(W, f"the day page after choosing {BROWSER_LANG} again")
    print("ok")
finally:
    browser.quit()
