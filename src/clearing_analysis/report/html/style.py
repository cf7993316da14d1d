"""The page's one stylesheet: light by default, dark with the system's dark theme, plain in
print. The Content-Security-Policy allows exactly this text (by its SHA-256), so it is a
constant: the page loads no other style, font or image."""

from __future__ import annotations

STYLE = """
:root{color-scheme:light dark;--fg:#1d1d1f;--bg:#ffffff;--muted:#5f6368;--rule:#d0d4d9;
--panel:#f5f7fa;--build:#1e7e34;--defer:#9a6700;--stop:#b02a37}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#16181d;--muted:#a0a6ad;
--rule:#3a3f47;--panel:#1f232a;--build:#5cc27a;--defer:#e3b341;--stop:#f06a73}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:1rem 1.5rem 3rem;font:15px/1.45 system-ui,
-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;color:var(--fg);
background:var(--bg)}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.35rem;margin-top:2rem;
border-bottom:1px solid var(--rule)}h3{font-size:1.15rem;margin-top:1.8rem}
h4{font-size:1rem;margin:1.4rem 0 .3rem}
.meta,.note,figcaption,caption{color:var(--muted)}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem}
a{color:inherit}
#summary{background:var(--panel);border:1px solid var(--rule);padding:.2rem 1rem .6rem}
#summary h2{border-bottom:none}#summary ul.apis{padding-left:1.2rem}
#summary ul.apis>li{margin:.4rem 0}#summary ul.apis ul{color:var(--muted);margin:.1rem 0}
p.overall{font-size:1.05rem}
code{font-family:ui-monospace,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.92em}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:.3rem;font-weight:700;
color:var(--bg)}
.badge.build{background:var(--build)}.badge.defer{background:var(--defer)}
.badge.stop{background:var(--stop)}
table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:13px}
caption{text-align:left;padding:.2rem 0}
th,td{border:1px solid var(--rule);padding:.15rem .5rem;text-align:left;vertical-align:top;
overflow-wrap:anywhere}
thead th{background:var(--panel)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:.6rem 0}
.chart-title{font-weight:600;margin:.8rem 0 .2rem}
svg.chart{width:100%;height:auto;display:block}
svg.chart text{fill:var(--fg)}
svg.chart line{stroke:var(--rule)}
details.data summary{cursor:pointer;color:var(--muted)}
dt{margin-top:.4rem}dd{margin-left:1.5rem;color:var(--muted)}
@media print{:root{--fg:#000;--bg:#fff;--muted:#333;--rule:#999;--panel:#fff}
body{max-width:none;padding:0;font-size:11pt}nav{display:none}
details.data>summary{display:none}
section.figure,figure,table{break-inside:avoid}
section.api{break-before:page}}
"""
