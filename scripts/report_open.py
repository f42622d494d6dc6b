#!/usr/bin/env python3
"""How quickly a report of many runs opens: pages per run, or one file.

    python3 scripts/report_open.py [RUNS] [WORKDIR]

Builds pyharness, writes a corpus of about RUNS runs (default 1000) with
gen-corpus, writes the report with a page per run (what `pyharness report`
does), and assembles the two one-file alternatives from the same pages: every
transcript inline, and every transcript inline but folded in a <details>.
Then it opens each page in headless Chromium five times and prints the median
time to the load event and the DOM's element count. The time is read inside
the browser (Navigation Timing, logged to the console by a probe script
added to a copy of each page, its content security policy removed), so the
browser's own start-up, which dwarfs a small page on a busy machine, is not
counted. docs/performance.md gives the figures. Needs chromium (apt-get install
-y chromium)."""
import os, re, shutil, statistics, subprocess, sys, tempfile

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
work = sys.argv[2] if len(sys.argv) > 2 else os.path.join(tempfile.gettempdir(), f"pyharness-report-{runs}")
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
browser = shutil.which("chromium") or shutil.which("chromium-browser")
if not browser:
    sys.exit("report_open: chromium is missing (apt-get install -y chromium)")

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
binary = os.path.join(work, "pyharness")
subprocess.run(["go", "build", "-o", binary, "./cmd/pyharness"], cwd=root, check=True)
corpus = os.path.join(work, "corpus")
# gen-corpus writes about five turns a run.
subprocess.run([binary, "gen-corpus", "--out", corpus, "--turns", str(runs * 5), "--jobs", "1"], check=True, stdout=subprocess.DEVNULL)
report = os.path.join(corpus, "report.html")
subprocess.run([binary, "report", "--in", corpus, "--out", report], check=True)
pages_dir = os.path.join(corpus, "report-runs")
run_dir = os.path.join(pages_dir, "run")

# The one-file alternatives: the report with every run page's body inline.
run_pages = sorted(os.listdir(run_dir))
head = open(report).read()
style, inline, folded = None, [], []
for name in run_pages:
    page = open(os.path.join(run_dir, name)).read()
    style = style or re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    body = re.sub(r"<nav>.*?</nav>", "", re.search(r"<main>(.*)</main>", page, re.S).group(1), flags=re.S)
    rid = name[:-len(".html")]
    inline.append(f'<section id="run-{rid}">{body}</section>')
    folded.append(f'<details id="run-{rid}"><summary>{rid}</summary>{body}</details>')
variants = {}
for label, parts in [("one file, every transcript inline", inline), ("one file, every transcript in a closed <details>", folded)]:
    path = os.path.join(corpus, f"onefile-{len(variants)}.html")
    with open(path, "w") as f:
        f.write(head.replace("</style>", style + "</style>", 1).replace("</main>", "<h2>Every run</h2>" + "".join(parts) + "</main>"))
    variants[label] = path

PROBE = ('<script>addEventListener("load",()=>{const n=performance.getEntriesByType("navigation")[0];'
         'console.log("TIMING load="+Math.round(n.loadEventStart)+" nodes="+document.getElementsByTagName("*").length)});</script>')


def measure(path):
    page = open(path).read()
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace("<head>", "<head>" + PROBE, 1)
    probe = path + ".probe.html"
    with open(probe, "w") as f:
        f.write(page)
    loads, nodes = [], 0
    for i in range(5):
        profile = os.path.join(work, "profile")
        shutil.rmtree(profile, ignore_errors=True)
        r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
                            "--enable-logging=stderr", "--v=0", "--window-size=1400,1800", "--dump-dom", "file://" + probe],
                           capture_output=True, text=True)
        m = re.search(r"TIMING load=(\d+) nodes=(\d+)", r.stderr)
        if not m:
            sys.exit(f"report_open: no timing from {path}:\n{r.stderr[-2000:]}")
        loads.append(int(m.group(1)))
        nodes = int(m.group(2))
    os.remove(probe)
    return statistics.median(loads), nodes


rows = [("the report (report.html)", report), ("the list of every run (report-runs/index.html)", os.path.join(pages_dir, "index.html")),
        ("one run's page", os.path.join(run_dir, run_pages[0]))] + list(variants.items())
total = sum(os.path.getsize(os.path.join(run_dir, p)) for p in run_pages)
print(f"{len(run_pages)} runs; their pages hold {total / 1e6:.1f} MB together")
print(f"{'page':<52} {'bytes':>11} {'elements':>9} {'load ms (median of 5)':>22}")
for label, path in rows:
    ms, nodes = measure(path)
    print(f"{label:<52} {os.path.getsize(path):>11} {nodes:>9} {ms:>22.0f}")
if os.environ.get("KEEP") != "1":
    shutil.rmtree(work)
