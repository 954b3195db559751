"""The comb (apps/scene/src/shapes.rs) at tile 8: the smallest heaviest part of any partition
into PARTS connected parts, and a witness partition at that weight (docs/partitioning.md,
"The comb: bounds").

The tile graph is a ladder of 25 tile columns (row 0: spine tiles of 64 cells; row 1: spine
rows 8-9 with the finger stubs), fingers within one tile column hang on their row-1 node as a
chain of 22 pieces, and the 8 fingers crossing a tile boundary are pairs of chains joined at
every tile row, hanging on both row-1 nodes. A chain goes whole with its row-1 node or is a
part of its own; a pair is split between the two row-1 owners (left chain bottom-up, then the
right chain top-down: the only splits that keep both connected) or is a part of its own. A
dynamic programme over the ladder's columns keeps, per (parts used, same part on both rows),
the Pareto front of the two open parts' weights, and bisects on the cap.

usage: python3 comb_tile8_dp.py PARTS [WITNESS]: prints the smallest feasible heaviest part and
writes the witness's part of every cell (x fastest) to WITNESS. Bench only, not part of yee;
`cargo run --release -p yee-partition-compare --bin comb_witness WITNESS 8` checks a witness.
"""
side=200
act=lambda x,y: 0<=x<side and 0<=y<side and (y<10 or (x%6<3 and y<192))
N=sum(act(x,y) for x in range(side) for y in range(side))
T=8; nt=side//T
def piece_runs(c,r):
    xs=[x for x in range(c*T,c*T+T) if act(x,r*T)]
    runs=[];
    for x in xs:
        if runs and runs[-1][-1]==x-1: runs[-1].append(x)
        else: runs.append([x])
    return runs
def w(c,r,run=None):
    cells=[(x,y) for x in range(c*T,c*T+T) for y in range(r*T,r*T+T) if act(x,y) and (run is None or x in run)]
    return len(cells)
top=[];bot=[];pair=[];topopts=[]  # pair[c]: split finger between c and c+1 -> (left amounts possible)
for c in range(nt):
    bot.append(w(c,0))
    runs=piece_runs(c,2)
    whole=[r for r in runs if not (r[0]==c*T and act(c*T-1,20)) and not (r[-1]==c*T+T-1 and act(c*T+T,20))]
    top.append(w(c,1)+sum(w(c,r,run) for r in range(2,nt) for run in whole))
    chains=[sum(w(c,r,run) for r in range(2,nt)) for run in whole]
    opts_c={}
    import itertools
    for mask in itertools.product([0,1],repeat=len(chains)):
        wt=w(c,1)+sum(ch for ch,m in zip(chains,mask) if not m); e=sum(mask)
        if wt<opts_c.get(e,(10**9,))[0]: opts_c[e]=(wt,mask)
    topopts.append(sorted((e,v[0],v[1]) for e,v in opts_c.items()))
    right=[r for r in runs if r[-1]==c*T+T-1 and act(c*T+T,20)]
    if right:
        rr=right[0]; nxt=[x for x in range(c*T+T,c*T+2*T) if act(x,20) and all(act(xx,20) for xx in range(c*T+T,x+1)) and x-c*T-T<3]
        L=[w(c,r,rr) for r in range(2,nt) if w(c,r,rr)]
        R=[w(c+1,r,nxt) for r in range(2,nt) if w(c+1,r,nxt)][::-1]
        seq=L+R; amts=[0]
        for s in seq: amts.append(amts[-1]+s)
        pair.append((amts[-1],amts))
    else: pair.append(None)
assert sum(top)+sum(bot)+sum(p[0] for p in pair if p)==N
def pareto(S):
    S=sorted(set(S)); out=[]; best=10**9
    for a,b in S:  # sorted by a asc then b asc
        if b<best: out.append((a,b)); best=b
    return out
def feasible(parts,C):
    # state key: (k, same) -> list of (wT,wB)
    st={}
    b0=bot[0]
    par={}
    cur=[None]
    def add(d,key,v,info=None):
        if v[0]<=C and v[1]<=C:
            d.setdefault(key,[]).append(v)
            par.setdefault((len(hist),key,v),info)
    hist=[]
    for e0,t0,m0 in topopts[0]:
        add(st,(1+e0,True),(t0+b0,t0+b0),('start','same',m0)); add(st,(2+e0,False),(t0,b0),('start','diff',m0))
    hist.append(st)
    for c in range(nt-1):
        nb=bot[c+1]; pr0=pair[c]
        new={}
        for (k0,same),vals in st.items():
          for e,nt_,msk in topopts[c+1]:
           for pe in ([0,1] if pr0 else [0]):
            k=k0+e+pe
            if k>parts: continue
            pr=None if pe else pr0
            for wT,wB in vals:
                P=((k0,same),(wT,wB))
                # split options: amount a to top(c) part, rest to top(c+1) part (if different)
                def opts(sameTop):
                    if pr is None: return [(0,0)]
                    if sameTop: return [(pr[0],0)]
                    return [(a,pr[0]-a) for a in pr[1]]
                cands=[]
                # (T,B) continue
                cands.append(('TB',))
                cands += [('TT',),('BB',),('TN',),('NB',),('NN',),('N1N2',)]
                for cnd in cands:
                    kind=cnd[0]
                    if same and kind in ('BB',):  # same as TT
                        continue
                    if kind=='TB':
                        for a,r in opts(True):
                            if same:
                                v=wT+a+nt_+nb; add(new,(k,True),(v,v),(P,kind,a,msk,pe))
                            else: add(new,(k,False),(wT+a+nt_,wB+nb),(P,kind,a,msk,pe))
                    elif kind=='TT':
                        if same: continue
                        for a,r in opts(True):
                            v=wT+a+nt_+nb; add(new,(k,True),(v,v),(P,kind,a,msk,pe))
                    elif kind=='BB':
                        for a,r in opts(False):
                            if wT+a>C: continue
                            v=wB+r+nt_+nb; add(new,(k,True),(v,v),(P,kind,a,msk,pe))
                    elif kind=='TN':
                        if k+1>parts: continue
                        for a,r in opts(True):
                            add(new,(k+1,False),(wT+a+nt_,nb),(P,kind,a,msk,pe))
                    elif kind=='NB':
                        if k+1>parts: continue
                        for a,r in opts(False):
                            if wT+a>C: continue
                            if same: add(new,(k+1,False),(r+nt_,wB+a+nb),(P,kind,a,msk,pe)); continue
                            add(new,(k+1,False),(r+nt_,wB+nb),(P,kind,a,msk,pe))
                    elif kind=='NN':
                        if k+1>parts: continue
                        for a,r in opts(False):
                            if wT+a>C: continue
                            v=r+nt_+nb; add(new,(k+1,True),(v,v),(P,kind,a,msk,pe))
                    elif kind=='N1N2':
                        if k+2>parts: continue
                        for a,r in opts(False):
                            if wT+a>C: continue
                            add(new,(k+2,False),(r+nt_,nb),(P,kind,a,msk,pe))
        st={key:pareto(v) for key,v in new.items()}
        hist.append(st)
    for key,vals in st.items():
        if key[0]<=parts:
            return (hist,par,key,vals[0])
    return None

import sys
parts=int(sys.argv[1])
lo,hi=N//parts,N
while lo<hi:
    m=(lo+hi)//2
    if feasible(parts,m): hi=m
    else: lo=m+1
print("%d parts: heaviest part at least %d cells, imbalance %.4f"%(parts,lo,lo/(N/parts)))
res=feasible(parts,lo)
hist,par,key,val=res
# walk back
decs=[]
col=len(hist)-1
while True:
    info=par[(col,key,val)]
    decs.append(info)
    if info[0]=='start': break
    (key,val),kind,a,_,_=info
    col-=1
decs=decs[::-1]
# assign labels forward
lab_t=[None]*nt; lab_b=[None]*nt; alloc={}
nxt=0
masks=[decs[0][2]]; pes={}
if decs[0][1]=='same': lab_t[0]=lab_b[0]=0; nxt=1
else: lab_t[0]=0; lab_b[0]=1; nxt=2
for c in range(nt-1):
    P,kind,a,msk,pe=decs[c+1]; masks.append(msk); pes[c]=pe
    TT_,BB_=lab_t[c],lab_b[c]
    if kind=="TB": t,b=TT_,BB_
    elif kind=="TT": t,b=TT_,TT_
    elif kind=="BB": t,b=BB_,BB_
    elif kind=="TN": t,b=TT_,nxt; nxt+=1
    elif kind=="NB": t,b=nxt,BB_; nxt+=1
    elif kind=='NN': t=b=nxt; nxt+=1
    else: t,b=nxt,nxt+1; nxt+=2
    lab_t[c+1],lab_b[c+1]=t,b
    alloc[c]=a
# per-cell part map
part=[-1]*(side*side)
for c in range(nt):
    for x in range(c*T,c*T+T):
        for y in range(0,8):
            if act(x,y): part[y*side+x]=lab_b[c]
        for y in range(8,16):
            if act(x,y): part[y*side+x]=lab_t[c]
    runs=piece_runs(c,2)
    whole=[r for r in runs if not (r[0]==c*T and act(c*T-1,20)) and not (r[-1]==c*T+T-1 and act(c*T+T,20))]
    for run,m in zip(whole,masks[c]):
        own=lab_t[c]
        if m: own=nxt; nxt+=1
        for x in run:
            for y in range(16,192): part[y*side+x]=own
for c in range(nt-1):
    if pair[c] is None: continue
    runs=piece_runs(c,2); rr=[r for r in runs if r[-1]==c*T+T-1][0]
    nx=[x for x in range(c*T+T,c*T+T+3) if act(x,20)]
    nx=[x for i,x in enumerate(nx) if x==c*T+T+i]
    a=alloc[c] if lab_t[c]!=lab_t[c+1] else pair[c][0]
    if pes[c]:
        for cols,r in [(rr,r) for r in range(2,nt)]+[(nx,r) for r in range(2,nt)]:
            for x in cols:
                for y in range(r*T,r*T+T):
                    if act(x,y): part[y*side+x]=nxt
        nxt+=1
        continue
    seq=[]
    for r in range(2,nt):
        if w(c,r,rr): seq.append((rr,r))
    for r in reversed(range(2,nt)):
        if w(c+1,r,nx): seq.append((nx,r))
    acc=0
    for cols,r in seq:
        cnt=sum(1 for x in cols for y in range(r*T,r*T+T) if act(x,y))
        owner=lab_t[c] if acc+cnt<=a else lab_t[c+1]
        acc+=cnt
        for x in cols:
            for y in range(r*T,r*T+T):
                if act(x,y): part[y*side+x]=owner
assert all((p>=0)==act(i%side,i//side) for i,p in enumerate(part))
open(sys.argv[2] if len(sys.argv)>2 else 'comb_witness_%d.txt'%parts,'w').write(' '.join(map(str,part)))
