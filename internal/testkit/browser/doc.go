// Package browser renders the report's pages in headless Chromium for the
// tests that look at them as a person would: the DOM the browser built, the
// console messages it logged, a screenshot, and how far a page scrolls
// sideways at the width the report is made for.
package browser
