package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Width is the window width pages are rendered at, in CSS pixels.
const Width = 1400

// ErrNoChromium is returned by Find when no Chromium is installed.
var ErrNoChromium = errors.New("chromium is not installed (apt-get install -y chromium; .ci/run installs it)")

// Find returns the path of the Chromium binary.
func Find() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// Render loads page (a file path) in headless Chromium at Width, writes a
// screenshot to shot, and returns the DOM the browser built and the
// console messages it logged. dir holds the browser's profile.
func Render(ctx context.Context, bin, dir, page, shot string) (dom string, console []string, err error) {
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile-"+filepath.Base(page)), "--enable-logging=stderr", "--v=0",
		"--hide-scrollbars", fmt.Sprintf("--window-size=%d,1800", Width), "--screenshot="+shot, "--dump-dom", "file://"+page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", nil, fmt.Errorf("render %s in chromium: %w\n%s", page, err, stderr.String())
	}
	for line := range strings.Lines(stderr.String()) {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, strings.TrimRight(line, "\n"))
		}
	}
	return stdout.String(), console, nil
}

var (
	cspRE      = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`)
	overflowRE = regexp.MustCompile(`data-overflow="(-?\d+)"`)
)

// Overflow is how far the page html scrolls sideways at Width, in CSS
// pixels: a copy of it, without its content security policy, runs a
// script that writes the document's scroll width less its client width
// into the DOM the browser dumps. name names the copy written in dir.
func Overflow(ctx context.Context, bin, dir, name, html string) (int, error) {
	if !cspRE.MatchString(html) {
		return 0, fmt.Errorf("measure %s: the page has no content security policy to lift for the measurement", name)
	}
	html = cspRE.ReplaceAllString(html, "")
	html = strings.Replace(html, "</body>", `<script>document.body.setAttribute("data-overflow", String(document.documentElement.scrollWidth - document.documentElement.clientWidth))</script></body>`, 1)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
		return 0, fmt.Errorf("measure %s: %w", name, err)
	}
	dom, _, err := Render(ctx, bin, dir, path, path+".png")
	if err != nil {
		return 0, err
	}
	m := overflowRE.FindStringSubmatch(dom)
	if m == nil {
		return 0, fmt.Errorf("measure %s: the browser did not measure the page", name)
	}
	return strconv.Atoi(m[1])
}
