// Renderer of the book's interactive figures (lib.plotting.InteractiveFigure).
// The notebook computes every frame; this script only draws the frame that the
// controls select, as SVG, with no network and no library.  One copy per page.
(function () {
  "use strict";
  if (window.GMFigure) return;
  var NS = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }

  // A linear or logarithmic map from data to SVG coordinates.
  function scale(lim, a, b, log) {
    var f = log ? Math.log10 : function (v) { return v; };
    var lo = f(lim[0]), hi = f(lim[1]);
    return function (v) { return a + (f(v) - lo) / (hi - lo) * (b - a); };
  }

  function Panel(svg, spec, id) {
    var box = spec.box;  // [left, top, width, height] in SVG units
    this.sx = scale(spec.xlim, box[0], box[0] + box[2], spec.xlog);
    this.sy = scale(spec.ylim, box[1] + box[3], box[1], spec.ylog);
    var g = el("g", {}, svg);
    el("rect", {x: box[0], y: box[1], width: box[2], height: box[3], fill: "#fff",
                stroke: "#999", "stroke-width": 0.8}, g);
    var clip = el("clipPath", {id: id}, g);
    el("rect", {x: box[0], y: box[1], width: box[2], height: box[3]}, clip);
    this.body = el("g", {"clip-path": "url(#" + id + ")"}, g);
    var sx = this.sx, sy = this.sy, text = function (x, y, s, extra) {
      var t = el("text", Object.assign({x: x, y: y, "font-size": 11, fill: "#222"}, extra || {}), g);
      t.textContent = s;
      return t;
    };
    (spec.xticks || []).forEach(function (t) {
      var x = sx(t[0]);
      el("line", {x1: x, x2: x, y1: box[1] + box[3], y2: box[1] + box[3] + 4, stroke: "#555"}, g);
      text(x, box[1] + box[3] + 15, t[1], {"text-anchor": "middle"});
    });
    (spec.yticks || []).forEach(function (t) {
      var y = sy(t[0]);
      el("line", {x1: box[0] - 4, x2: box[0], y1: y, y2: y, stroke: "#555"}, g);
      text(box[0] - 6, y + 4, t[1], {"text-anchor": "end"});
    });
    if (spec.xlabel) text(box[0] + box[2] / 2, box[1] + box[3] + 30, spec.xlabel, {"text-anchor": "middle"});
    if (spec.ylabel) {
      var cx = box[0] - 42, cy = box[1] + box[3] / 2;
      text(cx, cy, spec.ylabel, {"text-anchor": "middle", transform: "rotate(-90 " + cx + " " + cy + ")"});
    }
    if (spec.title) text(box[0] + box[2] / 2, box[1] - 8, spec.title, {"text-anchor": "middle", "font-weight": "bold"});
    this.layers = spec.layers.map(function (layer) {
      return {spec: layer, g: el("g", {}, this.body), key: null};
    }, this);
  }

  // Draw one layer's marks for one frame (layer frames are indexed by the
  // controls the layer depends on, `by`).
  Panel.prototype.draw = function (layer, frame) {
    var s = layer.spec, g = layer.g, sx = this.sx, sy = this.sy;
    if (s.type === "scatter") {
      if (!layer.dots) {
        layer.dots = s.x.map(function (x, i) {
          return el("circle", {cx: sx(x).toFixed(1), cy: sy(s.y[i]).toFixed(1), r: s.r,
                               stroke: "#333", "stroke-width": 0.4, fill: s.color || "#888"}, g);
        });
      }
      if (s.colors) {
        var hex = s.colors[frame];  // six hex digits per point, concatenated
        layer.dots.forEach(function (dot, i) { dot.setAttribute("fill", "#" + hex.substr(6 * i, 6)); });
      }
      return;
    }
    while (g.firstChild) g.removeChild(g.firstChild);
    var marks = s.frames[frame];
    if (s.type === "polylines") {
      marks.forEach(function (m) {  // m = [flat xy, stroke, fill, width, dash]
        var pts = [];
        for (var i = 0; i < m[0].length; i += 2) pts.push(sx(m[0][i]).toFixed(1) + "," + sy(m[0][i + 1]).toFixed(1));
        el(m[2] ? "polygon" : "polyline", {points: pts.join(" "), stroke: m[1] || "none",
             fill: m[2] || "none", "stroke-width": m[3] || 1.5, "stroke-dasharray": m[4] || "none"}, g);
      });
    } else if (s.type === "ellipses") {
      marks.forEach(function (m) {  // m = [cx, cy, a11, a12, a21, a22, stroke, width]: c + A (cos t, sin t)
        var pts = [];
        for (var i = 0; i <= 48; i++) {
          var t = 2 * Math.PI * i / 48, c = Math.cos(t), n = Math.sin(t);
          pts.push(sx(m[0] + m[2] * c + m[3] * n).toFixed(1) + "," + sy(m[1] + m[4] * c + m[5] * n).toFixed(1));
        }
        el("polyline", {points: pts.join(" "), stroke: m[6], fill: "none", "stroke-width": m[7] || 1.5}, g);
      });
    } else if (s.type === "texts") {
      marks.forEach(function (m) {  // m = [x, y, text, colour, anchor]
        var t = el("text", {x: sx(m[0]).toFixed(1), y: sy(m[1]).toFixed(1), fill: m[3] || "#222",
                            "font-size": 11, "text-anchor": m[4] || "start", "paint-order": "stroke",
                            stroke: "#fff", "stroke-width": 3}, g);
        t.textContent = m[2];
      });
    } else if (s.type === "raster") {
      // marks = string of class digits, row by row from the top; runs become rects
      var nx = s.shape[1], ny = s.shape[0], x0 = s.extent[0], x1 = s.extent[1];
      var y0 = s.extent[2], y1 = s.extent[3], dx = (x1 - x0) / nx, dy = (y1 - y0) / ny;
      for (var r = 0; r < ny; r++) {
        var start = 0;
        for (var c = 1; c <= nx; c++) {
          if (c === nx || marks[r * nx + c] !== marks[r * nx + start]) {
            var left = sx(x0 + start * dx), right = sx(x0 + c * dx);
            var top = sy(y1 - r * dy), bottom = sy(y1 - (r + 1) * dy);
            el("rect", {x: left.toFixed(1), y: top.toFixed(1), width: (right - left + 0.6).toFixed(1),
                        height: (bottom - top + 0.6).toFixed(1), fill: s.palette[+marks[r * nx + start]]}, g);
            start = c;
          }
        }
      }
    }
  };

  function GMFigure(root) {
    var spec = JSON.parse(root.querySelector("script[type='application/json']").textContent);
    var svg = root.querySelector("svg");
    var inputs = Array.prototype.slice.call(root.querySelectorAll("[data-control]"));
    var output = root.querySelector("output");
    var panels = spec.panels.map(function (p, i) { return new Panel(svg, p, root.id + "-clip" + i); });
    var sizes = spec.controls.map(function (c) { return c.size; });

    // Row-major index of the current values of the controls in `by`.
    function index(values, by) {
      var k = 0;
      by.forEach(function (j) { k = k * sizes[j] + values[j]; });
      return k;
    }
    function render() {
      var values = inputs.map(function (inp) { return +inp.value; });
      panels.forEach(function (panel) {
        panel.layers.forEach(function (layer) {
          var by = layer.spec.by || sizes.map(function (_, j) { return j; });
          var k = index(values, by);
          if (layer.key !== k) { panel.draw(layer, k); layer.key = k; }
        });
      });
      var all = sizes.map(function (_, j) { return j; });
      output.textContent = spec.text[index(values, all)];
      root.dataset.frame = index(values, all);
    }
    inputs.forEach(function (inp) { inp.addEventListener("input", render); inp.addEventListener("change", render); });
    render();
  }

  window.GMFigure = GMFigure;
  function start() {
    document.querySelectorAll(".interactive-figure:not([data-ready])").forEach(function (root) {
      root.setAttribute("data-ready", "");
      GMFigure(root);
    });
  }
  window.GMFigure.start = start;
})();
window.GMFigure.start();
