// Package browser drives traceview's page in headless Chromium (Debian's
// chromium, through the DevTools protocol with chromedp): its tests build
// traceview, write the page of a trace of every input format, load it,
// zoom and pan, and check what is drawn by the page's elements and their
// bounding boxes. It is a module of its own so that the SDK does not
// depend on chromedp.
package browser
