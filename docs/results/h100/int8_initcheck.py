# Does initcheck see the stores of cuBLAS's INT8 GEMM kernel? A 64x64 product over k = 5008, as the
# Ozaki rung's, through PyTorch (cuBLASLt), then an elementwise kernel that reads the product.
import torch
torch.manual_seed(0)
a = torch.randint(-127, 127, (64, 5008), dtype=torch.int8, device="cuda")
b = torch.randint(-127, 127, (64, 5008), dtype=torch.int8, device="cuda")
c = torch._int_mm(a, b.t())
d = c + 1
torch.cuda.synchronize()
ref = a.cpu().int() @ b.cpu().int().t()
print("int_mm right:", bool(torch.equal(c.cpu(), ref)), "sum", int(d.sum()))
