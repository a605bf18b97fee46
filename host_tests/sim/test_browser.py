"""The browser the page tests use is there and renders (host_tests/browser.py)."""
import browser


def test_headless_chromium_renders_a_page():
    driver = browser.chromium(400, 300)
    try:
        driver.get("data:text/html,<p id=t>shoe</p><script>"
                   "document.getElementById('t').textContent += ' ' + (6 * 7)</script>")
        assert driver.find_element("id", "t").text == "shoe 42"
    finally:
        driver.quit()
