"""``islands gallery RESULTS``: the page, checked in a real headless browser (Debian's chromium
driven by selenium through chromedriver): it loads, every image renders, every link resolves.

The browser is part of the test's requirements (``make test`` and ``make browser`` install
chromium and chromium-driver); where it is missing the test fails and says so, it does not skip."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from islands.plots.gallery import build_gallery, find_results

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
#: Where Debian's packages put the browser and its driver.
CHROMIUM = ("chromium", "chromium-browser")
CHROMEDRIVER = "chromedriver"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results root: a finished smoke sweep, a hardware benchmark with its figure, and a sweep
    directory that has a manifest but no rows yet."""
    from islands.__main__ import main as cli_main

    root = tmp_path_factory.mktemp("gallery") / "results"
    assert cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(root / "smoke"), "--no-progress"]) == 0
    bench = [
        "bench",
        "ipc",
        "--mechanisms",
        "pipe,shm_ring",
        "--round-trips",
        "200",
        "--quiet",
        "--out",
        str(root / "bench-ipc"),
    ]
    assert cli_main(bench) == 0
    empty = root / "waiting"
    empty.mkdir()
    (empty / "manifest.json").write_text(
        json.dumps({"experiment": "waiting", "figure": "000-fig11", "status": "running", "updated_utc": "x"})
    )
    return root


def browser():
    """A headless chromium through the system's chromedriver; pytest.fail naming what is missing."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is not installed: pip install -e '.[test]' (make test does)")
    binary = next((shutil.which(name) for name in CHROMIUM if shutil.which(name)), None)
    driver = shutil.which(CHROMEDRIVER)
    if binary is None or driver is None:
        missing = " and ".join(n for n, p in (("chromium", binary), ("chromedriver", driver)) if p is None)
        pytest.fail(
            f"no headless browser: {missing} not found (make browser runs apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    # --no-sandbox: chromium refuses to run as root otherwise (tests run as root in CI)
    flags = ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,2000")
    for arg in flags:
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def test_find_results_refuses_what_is_not_a_results_root(tmp_path):
    with pytest.raises(ValueError, match="no such results directory"):
        find_results(tmp_path / "nope")
    with pytest.raises(ValueError, match="no results directories in it"):
        find_results(tmp_path)


def test_two_directories_of_one_experiment_are_two_entries(results, tmp_path):
    root = tmp_path / "results"
    root.mkdir()
    for name in ("smoke-before", "smoke-after"):  # one experiment, two runs of it
        shutil.copytree(results / "smoke", root / name)
    shutil.copytree(results / "waiting", root / "waiting")
    page = build_gallery(root).read_text()
    assert page.count("<section ") == 3
    assert f"3 results directories under <code>{root}</code>" in page
    for name in ("smoke-before", "smoke-after"):
        assert f"id='entry-{name}'" in page and f"— smoke ({name})</h2>" in page
        assert list((root / "gallery" / name).glob("*.png")), f"no figure copied for {name}"


def test_gallery_cli_json_and_bad_input(cli_here, results, tmp_path):
    out = cli_here("gallery", str(results), "--out", str(tmp_path / "g"), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["page"] == str(tmp_path / "g" / "index.html")
    bad = cli_here("gallery", str(tmp_path / "missing"))
    assert bad.returncode == 2 and bad.stderr.startswith("islands: error:") and len(bad.stderr.splitlines()) == 1


def test_gallery_page_in_a_real_browser(results):
    page = build_gallery(results)
    assert page == results / "gallery" / "index.html"
    driver = browser()
    try:
        driver.get(page.as_uri())
        assert driver.title.startswith("islands figures")
        body = driver.find_element("tag name", "body").text
        # the smoke sweep: its figure's summary, config and machine
        assert "000-fig11 — smoke" in body and "1ISL" in body
        assert "bench-ipc" in body
        assert "no result rows yet" in body  # the directory without rows says why it has no figure
        for label in ("Config", "Machine"):
            assert label in body
        images = driver.find_elements("tag name", "img")
        assert len(images) >= 2  # the sweep's figure and the benchmark's
        for img in images:
            width = driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img)
            assert width and width > 0, f"image {img.get_attribute('src')} did not render"
        links = driver.find_elements("tag name", "a")
        assert links
        for link in links:
            href = link.get_attribute("href")
            url = urlparse(href)
            assert url.scheme == "file", href
            target = Path(unquote(url.path))
            assert target.is_file(), f"link {href} points at nothing"
            if url.fragment:
                assert driver.find_elements("id", url.fragment), f"link {href}: no element with that id"
        # nothing is wider than the page: summaries and configs wrap (a long line overflowed it)
        wide = driver.execute_script(
            "const w = document.documentElement.clientWidth;"
            "return [...document.querySelectorAll('pre, aside, section, p')]"
            ".filter(e => e.getBoundingClientRect().right > w + 1).map(e => e.className || e.tagName);"
        )
        assert not wide, f"elements wider than the page: {wide}"
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        toc_texts = [a.text for a in driver.find_elements("css selector", "ul.toc a")]
        assert len(toc_texts) == len(set(toc_texts)) == 3, toc_texts
        # each figure beside the paper's shape and the verdict on these rows
        asides = driver.find_elements("css selector", "aside.paper")
        assert len(asides) == 3 and all("Here:" in a.text for a in asides)
        # following a link to a figure shows the image itself
        first = images[0].get_attribute("src")
        driver.get(first)
        shown = driver.find_element("tag name", "img")
        assert driver.execute_script("return arguments[0].naturalWidth", shown) > 0
        # and the page's own anchors move to their section
        driver.get(page.as_uri())
        toc = driver.find_element("css selector", "ul.toc a")
        toc.click()
        assert driver.current_url.endswith(toc.get_attribute("href").split("/")[-1])
    finally:
        driver.quit()
    copied = {p.relative_to(page.parent).as_posix() for p in page.parent.rglob("*") if p.is_file()}
    assert {"smoke/000-fig11.png", "smoke/summary.txt", "smoke/manifest.json"} <= copied


def test_titles_are_unique_and_each_figure_sits_beside_its_paper_and_verdict(results, tmp_path):
    root = tmp_path / "results"
    root.mkdir()
    for name in ("smoke-before", "smoke-after"):
        shutil.copytree(results / "smoke", root / name)
    shutil.copytree(results / "bench-ipc", root / "bench-ipc")
    page = build_gallery(root).read_text()
    toc = re.findall(r"<li><a href='#[^']+'>([^<]+)</a>", page)
    assert toc == ["000-fig11 — smoke (smoke-after)", "000-fig11 — smoke (smoke-before)", "000-fig2 — bench-ipc"] or (
        len(toc) == len(set(toc)) == 3 and all("smoke (" in t for t in toc[:2])
    ), toc
    assert page.count("<aside class='paper'>") == 3
    assert "000-fig11: 1ISL flat; per-core best at 0%" in page  # the paper's shape beside the figure
    assert "000-fig2 (001 fig6): unix sockets fastest" in page
    # the smoke sweep measures none of Fig 11's claims (one deployment side missing or one size):
    # the verdict is the checks' word, and "not measured here" only where they say so
    verdicts = re.findall(r"Here: <strong>([^<]+)</strong>", page)
    assert set(verdicts) <= {"reproduced", "partly", "contradicted", "not settled", "not measured here"}
    assert verdicts[-1] == "not measured here"  # bench ipc: no claim of Fig 2 has a check
    # a benchmark's entry has its summary
    bench = page[page.index("id='entry-bench-ipc'") :]
    assert "<pre class='summary'>000 Fig 2: messages per second" in bench and "messages/s, round trip" in bench
    assert "white-space: pre-wrap" in page  # summaries wrap inside the page
