// Accessibility repairs of the theme's and extensions' HTML (issue 29).
//
// The book claims WCAG 2.1 AA for its HTML pages; browser_tests/test_accessibility.py
// audits every page with axe-core in light and dark mode.  What the theme
// (sphinx-book-theme 1.3 / pydata-sphinx-theme) and docutils write, and this
// script repairs once the page is parsed:
//
// * the sidebar's <details><summary> toggles have no text (axe: summary-name):
//   each gets the name "Sections of <chapter title>";
// * the search field button shows "Search Ctrl+K" but is named "Search"
//   (axe: label-content-name-mismatch): its name becomes its visible text, and
//   the shortcut is declared with aria-keyshortcuts;
// * the colour-mode button is named "Color mode" while its icons carry the
//   titles "Light", "Dark", "System Settings" (label-content-name-mismatch):
//   the icons become decorative and the button's name says the current mode;
// * docutils writes the bibliography as <div role="list"> of
//   <div role="doc-biblioentry"> (a deprecated role, and then not a list item:
//   aria-deprecated-role, aria-required-children): the entries become list items;
// * a Markdown table whose top-left header cell is empty has row labels in its
//   first column, which then have no header (axe: td-has-header): those cells
//   become row headers (<th scope="row">), the header cells column headers;
// * the theme gives a scrollable code block or table a Tab stop (so that the
//   keyboard can scroll it) only when the page loads: a block inside a folded
//   solution is not scrollable then, and stays out of the Tab order once
//   unfolded (axe: scrollable-region-focusable).  The Tab stops are updated
//   whenever such a block changes size or a box is folded or unfolded;
// * an interactive figure's slider (lib/interactive.js) has a frame index as
//   its value: a screen reader would say "2" where the reader sees "n = 20".
//   Each slider's aria-valuetext is the figure's value text (its <output>),
//   updated after the renderer has drawn the new frame.
//
// The script is idempotent and only touches the elements named above.
(function () {
  "use strict";

  var MODE_NAMES = {light: "light", dark: "dark", auto: "system setting"};

  function nameSidebarToggles() {
    document.querySelectorAll(".bd-sidebar-primary li.has-children > details > summary, " +
                              "nav.bd-links li > details > summary").forEach(function (summary) {
      if (summary.hasAttribute("aria-label") || summary.textContent.trim()) return;
      var li = summary.closest("li");
      var link = li && li.querySelector(":scope > a");
      var title = link ? link.textContent.replace(/\s+/g, " ").trim() : "";
      summary.setAttribute("aria-label", title ? "Sections of " + title : "Sections");
    });
  }

  function nameSearchButtons() {
    document.querySelectorAll("button.search-button__button").forEach(function (button) {
      button.setAttribute("aria-keyshortcuts", "Control+K");
      var visible = button.querySelector(".search-button__default-text");
      if (!visible) return;  // the icon-only button keeps its name "Search"
      var text = button.textContent.replace(/\s+/g, " ").trim();  // "Search Ctrl+K"
      button.setAttribute("aria-label", text);
    });
  }

  function nameThemeSwitch() {
    document.querySelectorAll("button.theme-switch-button").forEach(function (button) {
      button.querySelectorAll(".theme-switch, svg, i").forEach(function (icon) {
        icon.setAttribute("aria-hidden", "true");
        if (icon.hasAttribute("title")) {
          icon.setAttribute("data-title", icon.getAttribute("title"));
          icon.removeAttribute("title");
        }
        var title = icon.querySelector && icon.querySelector("title");
        if (title) title.remove();
      });
      var mode = document.documentElement.dataset.mode || "auto";
      button.setAttribute("aria-label", "Color mode: " + (MODE_NAMES[mode] || mode));
    });
  }

  function fixBibliography() {
    document.querySelectorAll('[role="doc-biblioentry"]').forEach(function (entry) {
      entry.setAttribute("role", "listitem");
    });
  }

  function markRowHeaders() {
    document.querySelectorAll("article table").forEach(function (table) {
      var head = table.tHead && table.tHead.rows.length === 1 ? table.tHead.rows[0] : null;
      if (!head || !head.cells.length || head.cells[0].textContent.trim()) return;
      Array.prototype.forEach.call(head.cells, function (cell) {
        if (cell.tagName === "TH" && !cell.hasAttribute("scope")) cell.setAttribute("scope", "col");
      });
      Array.prototype.forEach.call(table.tBodies, function (body) {
        Array.prototype.forEach.call(body.rows, function (row) {
          var cell = row.cells[0];
          if (!cell || cell.tagName !== "TD" || !cell.textContent.trim()) return;
          var th = document.createElement("th");
          Array.prototype.forEach.call(cell.attributes, function (a) { th.setAttribute(a.name, a.value); });
          th.setAttribute("scope", "row");
          while (cell.firstChild) th.appendChild(cell.firstChild);
          row.replaceChild(th, cell);
        });
      });
    });
  }

  // The theme's own list (pydata-sphinx-theme, addTabStopsToScrollableElements).
  var SCROLLABLE = ["pre", ".nboutput > .output_area", ".cell_output > .output",
                    ".jp-RenderedHTMLCommon", ".pst-scrollable-table-container"].join(", ");

  function updateTabStops() {
    document.querySelectorAll(SCROLLABLE).forEach(function (el) {
      var scrolls = el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight;
      var want = scrolls ? 0 : -1;
      if (el.tabIndex !== want) el.tabIndex = want;
    });
  }

  function watchScrollables() {
    if (watchScrollables.done) return;
    watchScrollables.done = true;
    if (window.ResizeObserver) {
      var observer = new ResizeObserver(updateTabStops);
      document.querySelectorAll(SCROLLABLE).forEach(function (el) { observer.observe(el); });
    }
    // A click on a fold toggle has already (un)folded its box when it reaches the document.
    document.addEventListener("click", function (event) {
      if (!event.target.closest || !event.target.closest(".toggle-button, .admonition-title, summary")) return;
      updateTabStops();
      setTimeout(updateTabStops, 400);
    });
    document.addEventListener("transitionend", updateTabStops);
  }

  function describeSliders() {
    document.querySelectorAll(".interactive-figure").forEach(function (figure) {
      if (figure.hasAttribute("data-a11y-sliders")) return;
      var output = figure.querySelector("output");
      var sliders = figure.querySelectorAll('input[type="range"][data-control]');
      if (!output || !sliders.length) return;
      figure.setAttribute("data-a11y-sliders", "");
      var update = function () {
        var text = output.textContent.replace(/\s+/g, " ").trim();
        sliders.forEach(function (slider) { slider.setAttribute("aria-valuetext", text); });
      };
      // The renderer listens on the controls themselves: by the time an event
      // bubbles up to the figure, the <output> shows the new frame's text.
      figure.addEventListener("input", update);
      figure.addEventListener("change", update);
      update();
    });
  }

  function repair() {
    nameSidebarToggles();
    nameSearchButtons();
    nameThemeSwitch();
    fixBibliography();
    markRowHeaders();
    describeSliders();
    watchScrollables();
    updateTabStops();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", repair);
  else repair();
  // Font Awesome replaces <i> icons by <svg> after load, and the theme changes
  // data-mode on a click: repeat the icon and label repairs then.
  window.addEventListener("load", repair);
  new MutationObserver(nameThemeSwitch).observe(document.documentElement,
                                                {attributes: true, attributeFilter: ["data-mode"]});
})();
