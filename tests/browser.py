"""Headless Chromium for the tests that look at pages as a person does: Debian's chromium driven through its
chromedriver (selenium), never a browser downloaded from the web. `make browser` installs both."""

import os
import shutil

import pytest

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


def skip_without_browser() -> None:
    """Skip the calling test module without the browser, except in CI, where its absence is a failure."""
    if not (CHROMIUM and DRIVER) and not os.environ.get("CI"):
        pytest.skip("chromium/chromedriver not installed (make test installs them)", allow_module_level=True)


def chromium(width: int = 1100, height: int = 2400):
    """A headless Chromium with its console log kept; the caller quits it."""
    assert CHROMIUM and DRIVER, "chromium and chromedriver must be installed (make test does it)"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--window-size={width},{height}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=opts)
