# The Ozaki rung's INT8 products through cuBLAS itself (CuPy's binding of cublasGemmStridedBatchedEx):
# 8 batches of a 64x64 product over k = 5008, TN, int8 in, int32 out, into fresh memory; then a
# CuPy kernel reads the products. Does initcheck see the GEMM's stores?
import numpy as np
import cupy as cp
from cupy_backends.cuda.libs import cublas

batch, m, n, k = 8, 64, 64, 5008
rng = np.random.default_rng(0)
a = cp.asarray(rng.integers(-127, 127, (batch, m, k), dtype=np.int8))  # rows of A, k contiguous
b = cp.asarray(rng.integers(-127, 127, (batch, n, k), dtype=np.int8))  # B transposed, k contiguous
c = cp.empty((batch, m, n), dtype=np.int32)                             # never written by us
alpha, beta = np.array(1, np.int32), np.array(0, np.int32)
handle = cp.cuda.device.get_cublas_handle()
# column-major: C^T (n x m) = B^T-op ... as the rung: op(A)=T on B's planes (k x n), op(B)=N on A's planes
cublas.gemmStridedBatchedEx(handle, 1, 0, n, m, k, alpha.ctypes.data, b.data.ptr, 3, k, n * k,
                            a.data.ptr, 3, k, m * k, beta.ctypes.data, c.data.ptr, 10, n, m * n, batch, 72, -1)
d = c + 1
cp.cuda.runtime.deviceSynchronize()
ref = np.einsum("bik,bjk->bij", cp.asnumpy(a).astype(np.int64), cp.asnumpy(b).astype(np.int64)).astype(np.int32)
print("products right:", bool((cp.asnumpy(c) == ref).all()), "sum", int(d.sum()))
