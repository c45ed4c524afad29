import torch, statistics, numpy as np, stable_radix as sr
def t(fn, reps=10):
    ts=[]
    for _ in range(reps+1):
        a,b=torch.cuda.Event(enable_timing=True),torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts[1:])
for lg in (18, 20, 22, 24, 26, 28):
    n=1<<lg
    x=torch.randint(-2**31,2**31-1,(n,),device='cuda',dtype=torch.int32)
    i64=torch.empty(n,dtype=torch.int64,device='cuda'); i32=torch.empty(n,dtype=torch.int32,device='cuda')
    a64=t(lambda: sr.argsort(x, out=i64)); a32=t(lambda: sr.argsort(x, out=i32, index_dtype=np.int32)); ta=t(lambda: torch.argsort(x, stable=True))
    print('2^%d argsort int64 %.3f int32 %.3f torch.argsort %.3f ratio %.2f' % (lg, a64, a32, ta, ta/a64))
