// dbrig report charts: draws the charts described in the JSON block of each
// .dbrig-report with uPlot (vendored next to this file). Hover shows values in
// the legend; dragging across a time chart zooms every time chart of the
// report to that range, double-click resets.
(function () {
  'use strict';

  function fmtNum(v) {
    if (v == null || isNaN(v)) return '–';
    var a = Math.abs(v);
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    return v.toPrecision(3);
  }

  // x of a distribution chart is 1/(1−p): 10 → 90%, 1000 → 99.9%.
  function pctLabel(x, precise) {
    if (x == null) return precise ? '–' : '';
    if (!precise && Math.abs(Math.log10(x) - Math.round(Math.log10(x))) > 1e-6) return '';
    var p = 100 * (1 - 1 / x);
    if (p <= 0) return '0%';
    var nines = Math.max(0, Math.ceil(Math.log10(x)) - 2);
    return p.toFixed(precise ? nines + 2 : nines) + '%';
  }

  // decades keeps the splits of a log axis at powers of ten.
  function decades(u, splits) {
    return splits.map(function (x) { return pctLabel(x, false) ? x : null; });
  }

  // drawEvents shades fault windows and draws one-off events and phase starts.
  function drawEvents(chart) {
    return function (u) {
      if (!chart.bands && !chart.marks) return;
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
      var left = u.bbox.left, right = u.bbox.left + u.bbox.width;
      ctx.save();
      ctx.textAlign = 'left';
      ctx.textBaseline = 'alphabetic';
      ctx.beginPath();
      ctx.rect(left, top, u.bbox.width, h);
      ctx.clip();
      (chart.bands || []).forEach(function (b) {
        var x0 = u.valToPos(b.from, 'x', true), x1 = u.valToPos(b.to, 'x', true);
        ctx.fillStyle = 'rgba(214, 39, 40, 0.13)';
        ctx.fillRect(x0, top, Math.max(x1 - x0, 2), h);
        ctx.fillStyle = '#a11';
        ctx.font = (11 * devicePixelRatio) + 'px sans-serif';
        ctx.fillText(b.label, Math.max(x0, left) + 3, top + 24 * devicePixelRatio);
      });
      (chart.marks || []).forEach(function (m) {
        var x = u.valToPos(m.at, 'x', true);
        if (x < left || x > right) return;
        ctx.strokeStyle = m.phase ? '#888' : '#6a3d9a';
        ctx.lineWidth = devicePixelRatio;
        ctx.setLineDash(m.phase ? [4 * devicePixelRatio, 4 * devicePixelRatio] : []);
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, top + h);
        ctx.stroke();
        ctx.fillStyle = m.phase ? '#666' : '#6a3d9a';
        ctx.font = (11 * devicePixelRatio) + 'px sans-serif';
        ctx.fillText(m.label, x + 3, top + 12 * devicePixelRatio);
      });
      ctx.restore();
    };
  }

  function options(chart, width, group) {
    var dist = chart.kind === 'distribution';
    var hist = chart.kind === 'history'; // x: run start, unix seconds
    var xScale = dist ? { time: false, distr: 3, log: 10 } : { time: hist };
    if (!dist && !hist && chart.xMax) {
      // Unzoomed (the data's own extent) the axis starts at the run's start;
      // a zoom keeps the range it asked for.
      var first = chart.x[0], last = chart.x[chart.x.length - 1];
      xScale.range = function (u, min, max) {
        return min === first && max === last ? [0, Math.max(max, chart.xMax)] : [min, max];
      };
    }
    var series = [{
      label: dist ? 'percentile' : hist ? 'run start' : 't',
      value: function (u, v) {
        if (v == null) return '–';
        if (dist) return pctLabel(v, true);
        if (hist) return new Date(v * 1000).toISOString().replace('T', ' ').slice(0, 19);
        return v.toFixed(3) + ' s';
      }
    }];
    // A time chart's value at x covers the second that ends at x: draw it as
    // a step back to the previous x, so a fault window lines up with its band.
    var stepped = dist || hist ? undefined : uPlot.paths.stepped({ align: -1 });
    chart.lines.forEach(function (l) {
      series.push({
        paths: stepped,
        label: l.label, stroke: l.color, width: 1.5, dash: l.dash ? [6, 4] : undefined,
        spanGaps: !!chart.spanGaps, points: { show: hist },
        value: function (u, v) { return fmtNum(v); }
      });
    });
    var opts = {
      title: chart.title, width: width, height: 280,
      // yMax: the y-scale's top when the chart sets one (the load phase's
      // batch latencies clip above it).
      scales: { x: xScale, y: { range: function (u, min, max) { max = chart.yMax || max; return [0, max > 0 ? max * 1.05 : 1]; } } },
      axes: [
        {
          label: chart.xLabel,
          values: dist ? function (u, splits) { return splits.map(function (x) { return pctLabel(x, false); }); } : undefined,
          // log axes split at 1..9 per decade: keep ticks and grid at decades only
          filter: dist ? decades : undefined,
          grid: dist ? { filter: decades } : undefined,
          ticks: dist ? { filter: decades } : undefined
        },
        { label: chart.yLabel, size: 60 }
      ],
      series: series,
      cursor: { drag: { x: true, y: false } },
      hooks: { draw: [drawEvents(chart)] }
    };
    if (!dist && !hist) {
      opts.cursor.sync = { key: group.key };
      opts.hooks.setScale = [function (u, key) {
        if (key !== 'x' || group.busy) return;
        group.busy = true;
        group.plots.forEach(function (o) {
          if (o !== u) o.setScale('x', { min: u.scales.x.min, max: u.scales.x.max });
        });
        group.busy = false;
      }];
    }
    return opts;
  }

  function render(root, n) {
    var block = root.querySelector('script.dbrig-charts');
    if (!block) return;
    var charts = JSON.parse(block.textContent);
    var group = { key: 'dbrig-' + n, plots: [], busy: false };
    var all = [];
    root.querySelectorAll('.dbrig-chart').forEach(function (el) {
      var chart = charts[+el.getAttribute('data-chart')];
      var data = [chart.x];
      chart.lines.forEach(function (l) { data.push(l.y); });
      var u = new uPlot(options(chart, Math.max(el.clientWidth, 300), group), data, el);
      el.dbrigPlot = u; // for tests and the browser console
      if (chart.kind !== 'distribution' && chart.kind !== 'history') group.plots.push(u);
      all.push({ u: u, el: el });
    });
    window.addEventListener('resize', function () {
      all.forEach(function (p) { p.u.setSize({ width: Math.max(p.el.clientWidth, 300), height: 280 }); });
    });
  }

  function start() {
    document.querySelectorAll('.dbrig-report').forEach(render);
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
