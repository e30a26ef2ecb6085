// weakscan report: switch the treemap's metric, filter and sort the tables. The page is
// complete without it.
(function () {
  "use strict";
  var groups = document.querySelectorAll("#treemap-svg g.metric");
  var note = document.getElementById("treemap-note");
  function show(metric) {
    groups.forEach(function (g) {
      var on = g.getAttribute("data-metric") === metric;
      g.style.display = on ? "" : "none";
      if (on && note) {
        var hidden = +g.getAttribute("data-hidden");
        note.textContent = g.getAttribute("data-rects") + " rectangles by " + metric +
          (hidden ? "; " + hidden + " symbols not drawn (too small, or no room left: in the tables below)" : "");
      }
    });
  }
  document.querySelectorAll("input[name=metric]").forEach(function (r) {
    r.addEventListener("change", function () { if (r.checked) show(r.value); });
  });
  var checked = document.querySelector("input[name=metric]:checked");
  if (checked) show(checked.value);

  function filter(input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    var q = input.value.trim().toLowerCase();
    var shown = 0;
    table.tBodies[0].querySelectorAll("tr").forEach(function (tr) {
      var hit = !q || tr.textContent.toLowerCase().indexOf(q) >= 0;
      tr.hidden = !hit;
      if (hit) shown++;
    });
    table.setAttribute("data-shown", shown);
  }
  document.querySelectorAll("input[type=search]").forEach(function (input) {
    input.addEventListener("input", function () { filter(input); });
  });

  document.querySelectorAll("table.sortable thead th button").forEach(function (button) {
    button.addEventListener("click", function () {
      var th = button.parentNode;
      var table = th.closest("table");
      var col = Array.prototype.indexOf.call(th.parentNode.children, th);
      var asc = th.getAttribute("aria-sort") !== "ascending";
      th.parentNode.querySelectorAll("th").forEach(function (o) {
        if (o.hasAttribute("aria-sort")) o.setAttribute("aria-sort", "none");
      });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var numeric = button.hasAttribute("data-num");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(tr) {
        var c = tr.children[col];
        // Figures are plain numbers or changes (+3, −3, ±0).
        return numeric ? parseFloat(c.textContent.replace("\u2212", "-").replace("\u00b1", "")) || 0 : c.textContent;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var r = numeric ? x - y : x.localeCompare(y);
        return asc ? r : -r;
      });
      rows.forEach(function (tr) { body.appendChild(tr); });
    });
  });

  // A click on a rectangle searches the groups table for its group.
  document.querySelectorAll("#treemap-svg rect").forEach(function (rect) {
    rect.addEventListener("click", function () {
      var parts = rect.getAttribute("data-key").split("/");
      var input = document.querySelector("input[data-table=groups-table]");
      if (!input) return;
      input.value = parts[parts.length - 1];
      filter(input);
      input.focus();
    });
  });

  // Deep links: #search=TEXT filters both tables, #metric=sites switches the treemap
  // (#search=v8%3A%3Ainternal&metric=exports).
  function fromHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    var q = params.get("search");
    if (q !== null) {
      document.querySelectorAll("input[type=search]").forEach(function (input) {
        input.value = q;
        filter(input);
      });
    }
    var m = params.get("metric");
    var radio = m && document.querySelector("input[name=metric][value=" + CSS.escape(m) + "]");
    if (radio) {
      radio.checked = true;
      show(m);
    }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
