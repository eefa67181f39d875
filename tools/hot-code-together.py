#!/usr/bin/env python3
# Whether the daemon's steady-state functions (tools/screentimed.order) lie side by side in a
# linked screentimed: `nm -S --defined-only screentimed | tools/hot-code-together.py tools/screentimed.order`.
# At least 70 % of those in the program must fit in a window a quarter larger than their total
# size (plus 64 KiB): the rest are the standard library's own, which its archive does not give
# a section each, so no link can move them. Unordered, about 30 % fit. Run by tools/check-install.
import sys
order, = sys.argv[1:2]
hot=set(l.strip()[6:] for l in open(order) if l.startswith(".text."))
fs=[]
for l in sys.stdin:
    p=l.split()
    if len(p)==4 and p[2] in 'tTwW' and p[3] in hot: fs.append((int(p[0],16),int(p[1],16)))
fs=sorted(set(fs))
size=sum(s for _,s in fs); window=size*5//4+65536
best=0; j=0
for i in range(len(fs)):
    while fs[i][0]+fs[i][1]-fs[j][0] > window: j+=1
    best=max(best,i-j+1)
print(f"{best} of {len(fs)} listed functions ({size//1024} KiB) within {window//1024} KiB")
sys.exit(0 if len(fs) >= 100 and best*10 >= len(fs)*7 else 1)
