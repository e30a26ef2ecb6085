// Collects the page's script errors into <pre id="js-errors"> (read by the browser test).
(function () {
  var seen = [];
  function put(msg) {
    seen.push(String(msg));
    var el = document.getElementById("js-errors");
    if (el) el.textContent = seen.join("\n");
  }
  var error = console.error;
  console.error = function () {
    put(Array.prototype.join.call(arguments, " "));
    return error.apply(console, arguments);
  };
  window.addEventListener("error", function (e) { put(e.message || "error"); });
  window.addEventListener("unhandledrejection", function (e) { put("unhandled rejection: " + e.reason); });
  document.addEventListener("DOMContentLoaded", function () { if (seen.length) put(seen.pop()); });
})();
