# The pages the Pico W serves (web.py): small, no external files, readable on a phone.
# Both table pages keep a stream of their JSON open (/api/table/stream, /api/seat/N/stream:
# server-sent events, each message the keys that changed) and draw the table it makes; the
# seat page adds the seat's own display lines and hands. A stream refused (a new
# session's codes, the server busy) reloads the page: the seat's code is asked again.
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
function $(i){return document.getElementById(i)}
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
s+='</table></div>';if(t.history)s+='<div class=box>Kept as <a id=kept href="/'+
t.history.slice(0,-4)+'">'+t.history+'</a>: standings and settle-up</div>';if(t.seal)s+='<div class=box id=seal>seal '+t.seal+'</div>';$('t').innerHTML=s;if(window.own)own(t)}
var T={},S=new EventSource(API+'/stream');S.onmessage=function(m){var d=JSON.parse(m.data),k;
for(k in d)T[k]=d[k];draw(T);document.body.dataset.v=T.events};S.onerror=function(){
if(S.readyState==2)setTimeout(function(){location.reload()},2000)};
</script>"""

END = b"</main></body></html>"

TABLE = b"""<h1>Pontoon table</h1><div id=t>Loading&hellip;</div>
<p><a id=histories href="/history">Past sessions: standings and settle-up</a> &middot;
your seat: /seat/N</p>
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


# A kept session (web.py: /history/NNNN): the numbers come from /api/history/NNNN
# (web_history.py) and the phone draws them: each seat's balance after every deal as a line
# over bands in the colour of the deal's banker, the final ledger, the winners, and who pays
# whom in the fewest payments.
HISTORY = (b"""<h1>Session <span id=name>""", b"""</span></h1><div id=t>Loading&hellip;</div>
<p><a href="/history">Past sessions</a> &middot; <a href="/">The table</a> &middot;
<a id=file href="/history/""", b""".txt">the history file</a></p><script>var NAME='""",
           b"""'</script>""")

# settle(p): p = [[who, amount], ...] summing to 0 -> [[payer, payee, amount], ...], the
# fewest payments. Exhaustive over every subset of the parties owed or owing (2^n, n <= 9):
# best[m] is the most zero-sum groups the set m splits into (taken one party at a time);
# each group of k then settles in k - 1 payments (the largest debt paid to the largest
# credit), so n - best[all] payments, and no fewer can settle them.
SETTLE = b"""<script>
function settle(p){var q=[],i,m,g;for(i=0;i<p.length;i++)if(p[i][1])q.push(p[i]);
var n=q.length,N=1<<n,sum=[0],best=[0],out=[];for(m=1;m<N;m++){var low=m&-m;
sum[m]=sum[m^low]+q[31-Math.clz32(low)][1];g=0;for(i=0;i<n;i++)
if((m>>i&1)&&best[m^1<<i]>g)g=best[m^1<<i];best[m]=g+(sum[m]?0:1)}
var at=N-1,from=N-1;while(at){for(i=0;i<n;i++)if((at>>i&1)&&
best[at^1<<i]==best[at]-(sum[at]?0:1))break;at^=1<<i;if(!sum[at]){group(q,from^at,out);
from=at}}return out}
function group(q,mask,out){var g=[],i;for(i=0;i<q.length;i++)if(mask>>i&1)g.push([q[i][0],
q[i][1]]);for(;;){g.sort(function(a,b){return a[1]-b[1]});var d=g[0],c=g[g.length-1];
if(d[1]>=0)break;var a=Math.min(-d[1],c[1]);out.push([d[0],c[0],a]);d[1]+=a;c[1]-=a}}
</script>"""

HISTORY_JS = b"""<script>
var COL=['#bbb','#ffd54a','#4fc3f7','#ff8a65','#aed581','#ce93d8','#f06292','#4db6ac',
'#fff176'];function $(i){return document.getElementById(i)}
function sg(n){return n>0?'+'+n:''+n}
function who(h,s){return s?'Seat '+s:(h.first?'Kitty':'House')}
function draw(h){var D=h.deals,n=h.seats-h.first+1,i,k,s,lo=0,hi=0,o='';
for(i=0;i<D.length;i++)for(k=0;k<n;k++){lo=Math.min(lo,D[i][2+k]);hi=Math.max(hi,D[i][2+k])}
if(hi==lo)hi=lo+1;var W=600,H=300,L=36,R=8,T=8,B=22;
function x(i){return (L+(W-L-R)*i/Math.max(1,D.length)).toFixed(1)}
function y(v){return (T+(H-T-B)*(hi-v)/(hi-lo)).toFixed(1)}
var g='<svg id=chart viewBox="0 0 '+W+' '+H+'" width="100%" style="background:#0e4d25">';
if(h.first)for(i=0;i<D.length;i++)g+='<rect class=band data-banker='+D[i][0]+' x='+x(i)+
' y='+T+' width='+(x(i+1)-x(i)).toFixed(1)+' height='+(H-T-B)+' fill="'+COL[D[i][0]]+
'" opacity=0.3></rect>'+(D.length>16?'':'<text x='+(x(i)-(-x(i+1)))/2+' y='+(T+14)+
' fill="'+COL[D[i][0]]+'" font-size=12 text-anchor=middle>B'+D[i][0]+'</text>');
g+='<line x1='+L+' x2='+(W-R)+' y1='+y(0)+' y2='+y(0)+' stroke="#fff" opacity=0.5></line>';
g+='<text x=2 y='+(T+10)+' fill="#fff" font-size=12>'+sg(hi)+'</text><text x=2 y='+(H-B)+
' fill="#fff" font-size=12>'+sg(lo)+'</text><text x='+L+' y='+(H-6)+
' fill="#fff" font-size=12>deal 0</text><text x='+(W-R-50)+' y='+(H-6)+
' fill="#fff" font-size=12>deal '+D.length+'</text>';
for(k=0;k<n;k++){s=h.first+k;var b=[0],pt=x(0)+','+y(0);for(i=0;i<D.length;i++){
b.push(D[i][2+k]);pt+=' '+x(i+1)+','+y(D[i][2+k])}g+='<polyline class=seat data-seat='+s+
' data-balances="'+b.join(',')+'" points="'+pt+'" fill=none stroke="'+COL[s]+
'" stroke-width=2.5></polyline>'}g+='</svg>';
o+='<div class=box>'+h.rules+' &middot; '+D.length+' deals'+(h.finished?'':' (not finished)')+
'</div>'+(h.error?'<div class=box id=err>Read up to: '+h.error+'</div>':'')+
'<div class=box>'+g+'<div id=legend>';for(k=0;k<n;k++){s=h.first+k;
o+='<span style="color:'+COL[s]+'">&#9644; '+who(h,s)+'</span> '}o+=(h.first?'<br>bands: who held the bank in each deal':'')+'</div></div>';
o+='<div class=box><table id=ledger><tr><td>Seat</td><td class=n>Balance</td></tr>';
var p=[],tot=0;for(k=0;k<n;k++){s=h.first+k;var w=h.winners.indexOf(s)>=0;
o+='<tr'+(w?' class=w':'')+'><td>'+who(h,s)+(w?' WINNER':'')+'</td><td class=n>'+
sg(h.balances[k])+'</td></tr>';p.push([who(h,s),h.balances[k]]);tot+=h.balances[k]}
if(tot)p.push([h.first?'Kitty':'House',-tot]);
var pay=settle(p);o+='</table></div><div class=box><b>Settle up</b>: '+pay.length+
' payment'+(pay.length==1?'':'s')+'<table id=settle>';for(i=0;i<pay.length;i++)
o+='<tr><td>'+pay[i][0]+'</td><td>pays</td><td>'+pay[i][1]+'</td><td class=n>'+pay[i][2]+
'</td></tr>';o+='</table></div>';$('t').innerHTML=o;document.body.dataset.ready=1}
fetch('/api/history/'+NAME).then(function(r){return r.json()}).then(draw).catch(function(x){
$('t').textContent='Could not read the session: '+x})
</script>"""

INDEX = (b"""<h1>Past sessions</h1><div class=box><ul id=sessions>""", b"""<li><a href="/history/""",
         b"""">Session """, b"""</a> &middot; <a href="/history/""", b""".txt">file</a></li>""",
         b"""</ul>""", b"""<p>No session kept yet.</p>""", b"""</div><p><a href="/">The table</a></p>""")


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


def history(name):
    n = name.encode()
    h = HISTORY
    return page((HEAD, h[0], n, h[1], n, h[2], n, h[3], SETTLE, HISTORY_JS, END))


def history_index(names):
    """The kept sessions (numbers, newest first), each a link to its page."""
    x = INDEX
    parts = [HEAD, x[0]]
    for name in names:
        n = name.encode()
        parts += (x[1], n, x[2], n, x[3], n, x[4])
    parts.append(x[5])
    if not names:
        parts.append(x[6])
    parts += (x[7], END)
    return page(parts)
