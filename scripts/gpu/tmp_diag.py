import torch, statistics, numpy as np, stable_radix as sr
def t(fn, reps=10):
    ts=[]
    for _ in range(reps+1):
        a,b=torch.cuda.Event(enable_timing=True),torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts[1:])
n=1<<28
x=torch.randint(-2**31,2**31-1,(n,),device='cuda',dtype=torch.int32)
xu=x.view(torch.uint32) if hasattr(torch,'uint32') else x
i64=torch.empty(n,dtype=torch.int64,device='cuda'); i32=torch.empty(n,dtype=torch.int32,device='cuda')
print('argsort int64 idx %.3f' % t(lambda: sr.argsort(x, out=i64)))
print('argsort int32 idx %.3f' % t(lambda: sr.argsort(x, out=i32, index_dtype=np.int32)))
print('argsort int32 idx + widen %.3f' % t(lambda: i64.copy_(sr.argsort(x, index_dtype=np.int32))))
print('argsort uint32 keys int64 idx %.3f' % t(lambda: sr.argsort(xu, out=i64)))
kv=torch.empty_like(x)
print('sort keys out= %.3f' % t(lambda: sr.sort(x, out=kv)))
print('copy only %.3f' % t(lambda: kv.copy_(x)))
io=torch.arange(n,device='cuda'); vo=torch.empty_like(io)
print('sort_by_key int64 vals %.3f' % t(lambda: sr.sort_by_key(x, io, out=(kv,vo))))
io32=torch.arange(n,device='cuda',dtype=torch.int32); vo32=torch.empty_like(io32)
print('sort_by_key int32 vals %.3f' % t(lambda: sr.sort_by_key(x, io32, out=(kv,vo32))))
print('argsort+gather %.3f' % t(lambda: (sr.argsort(x, out=i64), torch.take(x, i64))))
print('torch.sort %.3f' % t(lambda: torch.sort(x, stable=True)))
