// Listbox dropdowns: a button that opens a list of options. They answer only trusted input
// (real clicks and key presses), so a script cannot pick an option by dispatching events.
(function () {
  "use strict";

  function setup(root) {
    var button = root.querySelector("button[aria-haspopup='listbox']");
    var list = root.querySelector("[role='listbox']");
    var input = root.querySelector("input[type='hidden']");
    var shown = button.querySelector(".value");
    var options = Array.prototype.slice.call(list.querySelectorAll("[role='option']"));
    var active = -1;

    function highlight(i) {
      active = Math.max(0, Math.min(options.length - 1, i));
      options.forEach(function (o, j) { o.classList.toggle("active", j === active); });
      list.setAttribute("aria-activedescendant", options[active].id);
      options[active].scrollIntoView({ block: "nearest" });
    }
    function open() {
      list.hidden = false;
      button.setAttribute("aria-expanded", "true");
      var current = options.findIndex(function (o) { return o.getAttribute("aria-selected") === "true"; });
      highlight(current < 0 ? 0 : current);
      list.focus();
    }
    function close(refocus) {
      list.hidden = true;
      button.setAttribute("aria-expanded", "false");
      if (refocus) { button.focus(); }
    }
    function choose(i) {
      var option = options[i];
      input.value = option.getAttribute("data-value");
      shown.textContent = option.textContent.trim();
      options.forEach(function (o) { o.setAttribute("aria-selected", o === option ? "true" : "false"); });
      close(true);
    }

    button.addEventListener("click", function (e) {
      if (!e.isTrusted) { return; }
      if (list.hidden) { open(); } else { close(true); }
    });
    button.addEventListener("keydown", function (e) {
      if (!e.isTrusted) { return; }
      if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); open(); }
    });
    list.addEventListener("keydown", function (e) {
      if (!e.isTrusted) { return; }
      if (e.key === "ArrowDown") { e.preventDefault(); highlight(active + 1); }
      else if (e.key === "ArrowUp") { e.preventDefault(); highlight(active - 1); }
      else if (e.key === "Home") { e.preventDefault(); highlight(0); }
      else if (e.key === "End") { e.preventDefault(); highlight(options.length - 1); }
      else if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(active); }
      else if (e.key === "Escape" || e.key === "Tab") { close(e.key === "Escape"); }
    });
    options.forEach(function (option, i) {
      option.addEventListener("click", function (e) {
        if (!e.isTrusted) { return; }
        choose(i);
      });
    });
    document.addEventListener("click", function (e) {
      if (e.isTrusted && !root.contains(e.target)) { close(false); }
    });
  }

  function vanish(toast) {
    setTimeout(function () { toast.classList.add("gone"); }, 4000);
    setTimeout(function () { toast.remove(); }, 4600);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-listbox]").forEach(setup);
    document.querySelectorAll(".toast").forEach(vanish);
  });
})();
