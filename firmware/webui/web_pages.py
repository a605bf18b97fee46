# The pages the Pico W serves (web.py): small, no external files, readable on a phone.
# Both table pages long-poll their JSON (/api/table, /api/seat/N ?after=version) and draw
# it; the seat page adds the seat's own display lines and hands.
#
# Every part is a bytes constant: frozen, it stays in flash, and a page goes out part by
# part (page()), so neither importing this module nor serving a page puts the pages'
# text in the heap (a page joined at import would sit there for good).
HEAD = b"""<!doctype html><html><head><meta charset=utf-8>
<meta name=viewport content="width=device-width,initial-scale=1">
<title>Pontoon</title><link rel=icon href="data:,"><style>
body{font:16px system-ui,sans-serif;margin:0;background:#0b5d2a;color:#fff}
main{max-width:640px;margin:auto;padding:8px}h1{font-size:20px;margin:4px 0}
.box{background:#0e4d25;border-radius:8px;padding:8px;margin:8px 0}
.c{display:inline-block;background:#fff;color:#111;border-radius:4px;padding:2px 5px;
margin:1px;font-weight:600}.r{color:#b00}.d{background:#345;color:#345}
table{width:100%;border-collapse:collapse}td{padding:3px}
.n{text-align:right}.w{color:#ffd54a;font-weight:700}.p{font-size:18px;font-weight:600}
pre{font:15px monospace;background:#000;color:#9cf;padding:6px;border-radius:6px;
white-space:pre-wrap}a{color:#ffd54a}
</style></head><body><main>"""

JS = b"""<script>
var v=0;function $(i){return document.getElementById(i)}
function c(n){var r=/[HD]$/.test(n)?' r':'';return '<span class="c'+r+'">'+n+'</span>'}
function h(x){var s='';for(var i=0;i<x.down;i++)s+='<span class="c d">##</span>';
for(i=0;i<x.up.length;i++)s+=c(x.up[i]);return s}
function sg(n){return n>0?'+'+n:''+n}
function draw(t){var s='';if(t.stopped){$('t').innerHTML='Stopped: '+t.stopped;return}
var nx=t.phase=='idle'&&t.results?'Next: ':'';
s+='<div class=box><div class=p id=prompt>'+t.prompt+'</div>'+nx+'Deal <b id=deal>'+t.deal+
'</b> ('+t.preset+')'+(t.banker?' &middot; banker seat <b id=banker>'+t.banker+'</b>':'')+
(t.kitty!=null?' &middot; kitty '+t.kitty:'')+'</div>';
if(t.cut){s+='<div class=box>Cut for the bank: ';for(var i=0;i<t.cut.length;i++)
s+='seat '+t.cut[i].seat+' '+c(t.cut[i].card)+' ';s+='</div>'}
s+='<div class=box><table id=hands>';for(i=0;i<t.hands.length;i++){var x=t.hands[i];
s+='<tr><td>'+(x.seat?'Seat '+x.seat:'Banker')+(x.acting?' &#9664;':'')+'</td><td>'+h(x)+
(x.total?' '+x.total:'')+(x.bust?' <b>bust</b>':'')+'</td><td class=n>'+(x.stake!=null?
'stake '+x.stake+(x.shoot?' +shoot '+x.shoot:''):'')+'</td></tr>'}
s+='</table></div>';var net={};if(t.results&&t.results.net)for(i=0;i<t.results.net.length;
i++)net[t.results.net[i].seat]=t.results.net[i].net;
s+='<div class=box><table id=seats><tr><td>Seat</td><td class=n>Balance</td><td class=n>'+
(t.results?(t.results.void?'Deal void':'Deal '+t.results.deal):'')+'</td></tr>';
for(i=0;i<t.seats.length;i++){var q=t.seats[i],w=t.winners&&t.winners.indexOf(q.seat)>=0;
s+='<tr'+(w?' class=w':'')+'><td>'+q.seat+(w?' WINNER':'')+'</td><td class=n>'+
sg(q.balance)+'</td><td class=n>'+(q.seat in net?sg(net[q.seat]):'')+'</td></tr>'}
s+='</table></div>';if(t.history)s+='<div class=box>Kept as <a href="/'+t.history+'">'+
t.history+'</a></div>';$('t').innerHTML=s;if(window.own)own(t)}
function poll(){fetch(API+'?after='+v).then(function(r){if(r.status==403){location.reload();
throw 0}return r.json()}).then(function(t){var same=t.v==v;v=t.v;if(!same){draw(t);
document.body.dataset.v=t.events}setTimeout(poll,same?1000:0)}).catch(function(){
setTimeout(poll,2000)})}poll();
</script>"""

END = b"</main></body></html>"

TABLE = b"""<h1>Pontoon table</h1><div id=t>Loading&hellip;</div>
<p><a href="/history/">Hand histories</a> &middot; your seat: /seat/N</p>
<script>var API='/api/table'</script>"""

SEAT = b"""<h1 id=title>Your seat</h1><pre id=disp></pre><div id=mine></div>
<div id=t></div><script>var API='/api/seat/'+location.pathname.split('/')[2];
function own(t){$('title').textContent='Seat '+t.seat;$('disp').textContent=
t.display.join('\\n');var s='';for(var i=0;i<t.mine.length;i++){var m=t.mine[i];
s+='<div class="box p">';for(var k=0;k<m.cards.length;k++)s+=c(m.cards[k]);
s+=' '+m.total+' &middot; stake '+m.stake+'</div>'}$('mine').innerHTML=s}</script>"""

# the login page around its seat number (three times) and its message
LOGIN = (b"<h1>Seat ", b"""</h1><div class=box><form method=post action="/seat/""",
         b"""">
<p>The code on seat """, b"""'s display (or ask the banker):</p>
<input name=code inputmode=numeric autocomplete=off maxlength=6 size=8 autofocus>
<button>Open</button></form><p id=msg>""", b"""</p></div>
<p><a href="/">The table</a></p></main></body></html>""")


def page(parts):
    """(body, its length): an iterator over the parts (microdot sends each as it comes)."""
    n = 0
    for p in parts:
        n += len(p)
    return iter(parts), n


def table():
    return page((HEAD, TABLE, JS, END))


def seat():
    return page((HEAD, SEAT, JS, END))


def login(seat, msg=""):
    n = str(seat).encode()
    return page((HEAD, LOGIN[0], n, LOGIN[1], n, LOGIN[2], n, LOGIN[3], msg.encode(),
                 LOGIN[4]))
