// Small progressive enhancements; every page works without them.
(function () {
  "use strict";
  // One time zone per viewer: the server writes every moment in UTC, labelled so
  // (<time datetime="..." data-when="minutes|seconds|time">); here each is redrawn
  // in the browser's zone, with that zone's label, and the footer names it. The
  // cookie tells the server the zone for the forms that read times in it.
  var two = function (n) { return (n < 10 ? "0" : "") + n; };
  var zoneLabel = function (date, tz) {
    // "CET", "JST"; where the zone has no abbreviation, its offset ("UTC-03").
    var part = new Intl.DateTimeFormat("en-GB", { timeZone: tz, timeZoneName: "short" })
      .formatToParts(date).filter(function (p) { return p.type === "timeZoneName"; })[0];
    var name = part ? part.value : "UTC";
    var offset = /^(?:GMT|UTC)([+-])(\d{1,2})(?::(\d\d))?$/.exec(name);
    if (offset) return "UTC" + offset[1] + two(+offset[2]) + (offset[3] ? ":" + offset[3] : "");
    return name === "GMT" ? "UTC" : name;
  };
  var drawTime = function (el, tz) {
    var date = new Date(el.getAttribute("datetime"));
    if (isNaN(date.getTime())) return;
    var parts = {};
    new Intl.DateTimeFormat("en-GB", {
      timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit"
    }).formatToParts(date).forEach(function (p) { parts[p.type] = p.value; });
    var day = parts.year + "-" + parts.month + "-" + parts.day;
    var clock = parts.hour + ":" + parts.minute;
    var precision = el.getAttribute("data-when");
    var text = precision === "time" ? clock + ":" + parts.second
      : day + " " + clock + (precision === "seconds" ? ":" + parts.second : "");
    el.textContent = text + " " + zoneLabel(date, tz);
  };
  var drawTimes = function (root, tz) {
    root.querySelectorAll("time[data-when]").forEach(function (el) { drawTime(el, tz); });
  };
  try {
    var tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz) {
      if (document.cookie.indexOf("tz=" + encodeURIComponent(tz)) === -1) {
        document.cookie = "tz=" + encodeURIComponent(tz) + ";path=/;max-age=31536000;samesite=lax";
      }
      drawTimes(document, tz);
      document.querySelectorAll("[data-tz-shown]").forEach(function (el) { el.textContent = tz; });
      // Parts of pages drawn later (htmx swaps, refreshed boards) are redrawn too.
      new MutationObserver(function (records) {
        records.forEach(function (record) {
          record.addedNodes.forEach(function (node) {
            if (node.nodeType !== 1) return;
            if (node.matches("time[data-when]")) drawTime(node, tz); else drawTimes(node, tz);
          });
        });
      }).observe(document.body, { childList: true, subtree: true });
    }
  } catch (e) { /* keep the server's UTC times, labelled UTC */ }

  // Upload with a progress bar; the server's answer replaces the page.
  document.querySelectorAll("form[data-upload-progress]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.XMLHttpRequest || !window.FormData) return;
      event.preventDefault();
      var bar = form.querySelector("progress");
      var status = form.querySelector(".upload-status");
      var button = form.querySelector("button[type=submit]");
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.action || window.location.href);
      xhr.setRequestHeader("HX-Request", "true");
      bar.hidden = false; button.disabled = true;
      xhr.upload.addEventListener("progress", function (e) {
        if (e.lengthComputable) {
          var pct = Math.round((100 * e.loaded) / e.total);
          bar.value = pct; status.textContent = "Uploading… " + pct + "%";
        }
      });
      xhr.upload.addEventListener("load", function () { status.textContent = form.dataset.uploadDone || "Uploaded; validating the file…"; });
      xhr.addEventListener("load", function () {
        var target = xhr.getResponseHeader("HX-Redirect");
        if (target) { window.location.assign(target); return; }
        document.open(); document.write(xhr.responseText); document.close();
      });
      xhr.addEventListener("error", function () {
        status.textContent = "The upload failed (network error). Please try again.";
        button.disabled = false;
      });
      xhr.send(new FormData(form));
    });
  });

  // A file over the site's upload limit is refused before it is sent: the field
  // says why (the form cannot be submitted while it holds the file).
  document.querySelectorAll("input[type=file][data-max-bytes]").forEach(function (input) {
    var limit = parseInt(input.dataset.maxBytes, 10);
    var warning = document.createElement("p");
    warning.className = "size-warning error";
    warning.setAttribute("role", "alert");
    warning.hidden = true;
    input.insertAdjacentElement("afterend", warning);
    var check = function () {
      var file = input.files && input.files[0];
      var mib = function (n) {
        return n < 1048576 ? Math.round(n / 1024) + " KiB" : (n / 1048576).toFixed(1) + " MiB";
      };
      var message = file && file.size > limit
        ? file.name + " is " + mib(file.size) + ", more than the limit of " + mib(limit) +
          ": it would not be accepted. See \"Size and compressed files\" below."
        : "";
      input.setCustomValidity(message);
      warning.textContent = message;
      warning.hidden = !message;
    };
    input.addEventListener("change", check);
    check();
  });

  // Drag and drop: a file dropped on an upload form's file field is chosen in it.
  document.querySelectorAll("form[data-upload-progress] input[type=file]").forEach(function (input) {
    var zone = input.parentElement;
    var hint = document.createElement("p");
    zone.classList.add("dropzone");
    hint.className = "dropzone-hint";
    hint.setAttribute("aria-live", "polite");
    hint.textContent = "…or drop the file here.";
    zone.appendChild(hint);
    var show = function () { if (input.files && input.files.length) hint.textContent = "Chosen: " + input.files[0].name; };
    ["dragenter", "dragover"].forEach(function (type) {
      zone.addEventListener(type, function (e) { e.preventDefault(); zone.classList.add("dragging"); });
    });
    ["dragleave", "drop"].forEach(function (type) {
      zone.addEventListener(type, function (e) { e.preventDefault(); zone.classList.remove("dragging"); });
    });
    zone.addEventListener("drop", function (e) {
      if (!e.dataTransfer || !e.dataTransfer.files.length) return;
      input.files = e.dataTransfer.files;
      input.dispatchEvent(new Event("change"));  // shown, and its size checked
    });
    input.addEventListener("change", show);
  });

  // Sortable tables: click a column header to sort by it.
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, index) {
      th.classList.add("sortable-head"); th.tabIndex = 0;
      var sort = function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var asc = th.getAttribute("aria-sort") !== "ascending";
        rows.sort(function (a, b) {
          var x = a.cells[index].textContent.trim(), y = b.cells[index].textContent.trim();
          var nx = parseFloat(x.replace(/,/g, "")), ny = parseFloat(y.replace(/,/g, ""));
          var cmp = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return asc ? cmp : -cmp;
        });
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        rows.forEach(function (r) { body.appendChild(r); });
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });
})();

// Figure areas: one figure at a time, chosen in a list of what the figures show;
// a figure drawn both with a linear and a logarithmic x axis is one entry, with a
// second list for the scale (without JavaScript every figure is shown, one below
// the other).
(function () {
  "use strict";
  var SCALES = { linear: "linear", log: "log x" };
  var choice = function (id, text) {
    var label = document.createElement("label");
    var select = document.createElement("select");
    select.id = id;
    label.htmlFor = id;
    label.textContent = text;
    return { label: label, select: select };
  };
  document.querySelectorAll("[data-figure-selector]").forEach(function (area, n) {
    var figures = Array.prototype.slice.call(area.querySelectorAll(":scope > figure"));
    if (figures.length < 2) return;
    var groups = [];
    var byTitle = {};
    figures.forEach(function (figure, i) {
      var img = figure.querySelector("img");
      var title = figure.dataset.figureGroup || (img ? img.alt : "Figure " + (i + 1));
      if (!(title in byTitle)) {
        byTitle[title] = groups.length;
        groups.push({ title: title, figures: [] });
      }
      groups[byTitle[title]].figures.push(figure);
    });
    var what = choice("figure-select-" + n, "Figure: ");
    var scale = choice("figure-scale-" + n, " x axis: ");
    groups.forEach(function (group, i) {
      var option = document.createElement("option");
      option.value = String(i);
      option.textContent = group.title;
      what.select.appendChild(option);
    });
    var scaleOf = function (figure) { return figure.dataset.scale || "linear"; };
    var show = function () {
      var group = groups[Number(what.select.value)];
      var wanted = scale.select.value;
      var scales = group.figures.map(scaleOf);
      scale.select.textContent = "";
      scales.forEach(function (s) {
        var option = document.createElement("option");
        option.value = s;
        option.textContent = SCALES[s] || s;
        scale.select.appendChild(option);
      });
      scale.select.value = scales.indexOf(wanted) >= 0 ? wanted : scales[0];
      scale.label.hidden = scales.length < 2;
      scale.select.hidden = scales.length < 2;
      figures.forEach(function (figure) {
        figure.hidden = group.figures.indexOf(figure) < 0 ||
          scaleOf(figure) !== scale.select.value;
      });
    };
    what.select.addEventListener("change", show);
    scale.select.addEventListener("change", show);
    var wrap = document.createElement("p");
    wrap.className = "figure-choice";
    wrap.appendChild(what.label); wrap.appendChild(what.select);
    wrap.appendChild(scale.label); wrap.appendChild(scale.select);
    area.parentNode.insertBefore(wrap, area);
    area.classList.add("one-figure");
    show();
  });
})();

// A table wider than its scroll box says so: a hint just before the box ("scroll
// sideways"), shown while the box hides columns (the window's width, the
// "every column" toggle); the box can be scrolled with the keyboard. So does a
// figure drawn wider than a phone's column (a figure holding a table), in its
// <picture> box.
(function () {
  "use strict";
  if (!window.ResizeObserver) return;
  var check = function (box) {
    var what = box.querySelector("table") ? "table" : "figure";
    var hint = box.previousElementSibling;
    if (!hint || !hint.classList.contains("scroll-hint")) {
      hint = document.createElement("p");
      hint.className = "scroll-hint";
      hint.textContent = what === "table"
        ? "Wider than the screen: scroll the table sideways for more columns →"
        : "Wider than the screen: scroll the figure sideways →";
      box.parentNode.insertBefore(hint, box);
    }
    hint.hidden = box.scrollWidth <= box.clientWidth + 1;
    if (!hint.hidden && !box.hasAttribute("tabindex")) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      if (!box.hasAttribute("aria-label")) box.setAttribute("aria-label", "Scrollable " + what);
    }
  };
  var watch = function (root) {
    root.querySelectorAll(".scroll, .analysis, .plots picture").forEach(function (box) {
      if (box.dataset.scrollWatched || !box.querySelector("table, img")) return;
      box.dataset.scrollWatched = "1";
      var observer = new ResizeObserver(function () { check(box); });
      observer.observe(box);
      Array.prototype.forEach.call(box.children, function (c) { observer.observe(c); });
    });
  };
  watch(document);
  document.body.addEventListener("htmx:afterSettle", function (e) { watch(e.target); });
})();
