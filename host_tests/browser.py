"""Headless Chromium for the browser tests: Debian's `chromium` and `chromium-driver`.

Never a browser a test tool downloads for itself: the driver and the browser are the
Debian packages at fixed paths (`.ci/run` installs them on a fresh machine). A missing
browser is a failure with the command that installs it, never a skip.
"""
import os
import shutil
import tempfile

CHROMIUM = os.environ.get("SHOE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SHOE_CHROMEDRIVER", "/usr/bin/chromedriver")

# The flags this machine needs: no sandbox as root, and no background connections (the
# network is closed; Chromium's own look-ups would be refused many at a time).
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars")


def require():
    """Raise with the install command when the browser or its driver is missing."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    if missing:
        raise RuntimeError("browser tests need %s: apt-get install chromium chromium-driver"
                           % " and ".join(missing))


def chromium(width=1280, height=900):
    """A started selenium WebDriver on headless Chromium; call .quit() when done."""
    require()
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must never download
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument("--window-size=%d,%d" % (width, height))
    profile = tempfile.mkdtemp(prefix="shoe-chromium-")
    opts.add_argument("--user-data-dir=" + profile)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    quit_ = driver.quit

    def quit_and_clean():
        try:
            quit_()
        finally:
            shutil.rmtree(profile, ignore_errors=True)
    driver.quit = quit_and_clean
    return driver
