// Step through an attempt: one step shown at a time, ←/→ and the buttons move, the URL's
// #step-N names the step shown. Without script every step is simply listed in order.
(function () {
  "use strict";
  function start() {
    var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
    if (!steps.length) return;
    var links = Array.prototype.slice.call(document.querySelectorAll("#step-list a"));
    var prev = document.getElementById("prev-step");
    var next = document.getElementById("next-step");
    var counter = document.getElementById("step-counter");
    var current = 0;

    function show(index, quiet) {
      current = Math.max(0, Math.min(steps.length - 1, index));
      steps.forEach(function (s, i) { s.hidden = i !== current; });
      links.forEach(function (a, i) {
        if (i === current) { a.setAttribute("aria-current", "step"); a.scrollIntoView({block: "nearest"}); }
        else { a.removeAttribute("aria-current"); }
      });
      prev.disabled = current === 0;
      next.disabled = current === steps.length - 1;
      counter.textContent = (current + 1) + " of " + steps.length;
      if (!quiet) history.replaceState(null, "", "#" + steps[current].id);
    }

    function fromHash() {
      var id = decodeURIComponent(location.hash.slice(1));
      var at = steps.findIndex(function (s) { return s.id === id; });
      return at < 0 ? 0 : at;
    }

    prev.addEventListener("click", function () { show(current - 1); });
    next.addEventListener("click", function () { show(current + 1); });
    links.forEach(function (a, i) {
      a.addEventListener("click", function (event) { event.preventDefault(); show(i); });
    });
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      var tag = (event.target && event.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      if (event.key === "ArrowRight") { event.preventDefault(); show(current + 1); }
      else if (event.key === "ArrowLeft") { event.preventDefault(); show(current - 1); }
    });
    document.documentElement.classList.add("stepping");
    show(fromHash(), true);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
