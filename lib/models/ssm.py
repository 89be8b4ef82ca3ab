"""State-space and linear-attention families: DSS, a selective SSM (Mamba), and RetNet / causal
linear attention, in plain tensor operations (no CUDA kernels), so they run on a CPU, train as
``vmap``-ed ensembles and load weights by name like every family.

A model is ``embed -> L x [x + mixer(LN(x)); x + MLP(LN(x))] -> LN -> read-out`` (pre-LayerNorm
blocks; the MLP is omitted with ``d_mlp=0``). The mixer of every layer is one of:

* ``"dss"`` (Gupta et al., 2022, diagonal state spaces): per channel c, ``N`` complex modes
  ``Lambda = -exp(Lambda_re) + i Lambda_im``, step ``Delta = exp(log_dt)``, and the causal kernel
  ``K[l] = Re sum_n W_n (exp(Delta Lambda_n) - 1) / Lambda_n exp(Delta Lambda_n l)``, applied as a
  convolution by FFT; it equals the recurrence ``s_t = exp(Delta Lambda) s_{t-1} + (exp(Delta
  Lambda) - 1)/Lambda u_t``, ``y_t = Re(W . s_t)`` (:func:`dss_recurrence`, tested against it);
* ``"mamba"`` (Gu & Dao, 2023, Mamba-1 block): input projection to ``expand * d`` channels and a
  gate, a causal depthwise convolution, SiLU, the selective scan ``h_t = exp(dt_t A) h_{t-1} +
  dt_t B_t u_t``, ``y_t = C_t . h_t + D u_t`` with input-dependent ``dt, B, C``, the gate, an output
  projection; the scan is chosen by ``SSMConfig.scan`` (:data:`SCANS`): ``"loop"`` (the
  reference, the default: a loop over time under autograd), ``"fused"`` (the same recurrence one
  step at a time with a hand-written backward, never materialising a ``(B, L, d_inner, N)`` tensor
  but the states; the fast one on a CPU) or ``"chunked"`` (the parallel form over chunks of about
  sqrt(L) steps: within a chunk cumulative sums of the log-decays ``dt A <= 0``, so every
  exponential is of a number <= 0 and cannot overflow, and a short loop across chunks);
* ``"retnet"`` (Sun et al., 2023, retention without the xPos rotation): per head h,
  ``o_t = sum_{s<=t} gamma_h^(t-s) (q_t . k_s) v_s`` in the parallel form ``(Q K^T * D) V``, group
  norm, a SiLU gate; ``gamma = 1`` and no norm or gate (``"linear"``) is causal linear attention
  (Katharopoulos et al., 2020), whose recurrent form ``S_t = S_{t-1} + k_t^T v_t``,
  ``o_t = q_t S_t`` is tested against it.

The recurrent state per layer, the quantity the paper's lower bounds count, is
``d_model * d_state`` complex numbers for DSS, ``expand * d_model * d_state`` for Mamba and
``heads * (d_model / heads)^2`` for retention.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .. import validate
from .base import MAX_SIZE, Config, Model, check_seed
from .embedding import InputFields, add_input_weights, add_readout_weights, embed, read_out

MIXERS = ("dss", "mamba", "retnet", "linear")
#: Mamba's selective scan: the reference loop, the fused recurrence, the chunked parallel form
SCAN_NAMES = ("loop", "fused", "chunked")


def _fail(message: str):
    raise ValueError(f"SSMConfig: {message}")


@dataclass(frozen=True, kw_only=True)
class SSMConfig(InputFields, Config):
    mixer: str = "dss"
    n_layers: int = 2
    d_state: int = 16  # DSS modes per channel / Mamba state per channel
    n_heads: int = 4  # retention heads
    expand: int = 2  # Mamba
    d_conv: int = 4  # Mamba
    d_mlp: int = 0  # 0: no MLP in the block
    readout: str = "last"
    init_std: float | None = None
    scan: str = "loop"  # Mamba's selective scan (SCAN_NAMES); the default keeps stored results' loop

    def __post_init__(self):
        self.check_positive(("d_model", "n_out", "n_layers", "d_state", "n_heads", "expand", "d_conv", "max_len"),
                            _fail)
        self.check_types(booleans=("readout_bias",), optional_reals=("init_std",))
        if isinstance(self.d_mlp, bool) or not isinstance(self.d_mlp, int) or self.d_mlp < 0:
            _fail(f"d_mlp must be an integer >= 0, got {self.d_mlp!r}")
        if self.d_mlp > MAX_SIZE:
            _fail(f"d_mlp must be at most {MAX_SIZE:,}, got {self.d_mlp!r}")
        for name, allowed in (("mixer", MIXERS), ("readout", ("last", "all")), ("scan", SCAN_NAMES)):
            if not isinstance(getattr(self, name), str) or getattr(self, name) not in allowed:
                _fail(f"{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")
        if self.mixer in ("retnet", "linear") and self.d_model % self.n_heads:
            _fail(f"d_model ({self.d_model}) must be a multiple of n_heads ({self.n_heads})")
        self.check_input(_fail)

    @property
    def model_class(self) -> type:
        return SSMModel


# ----------------------------------------------------------------------------- DSS
class DSS(nn.Module):
    def __init__(self, c: SSMConfig):
        validate.instance("DSS", "c", c, SSMConfig)
        super().__init__()
        d, n = c.d_model, c.d_state
        self.log_dt = nn.Parameter(torch.empty(d))
        self.Lambda_re = nn.Parameter(torch.empty(d, n))
        self.Lambda_im = nn.Parameter(torch.empty(d, n))
        self.W_re = nn.Parameter(torch.empty(d, n))
        self.W_im = nn.Parameter(torch.empty(d, n))
        self.D = nn.Parameter(torch.empty(d))
        self.W_out = nn.Parameter(torch.empty(d, d))
        self.b_out = nn.Parameter(torch.zeros(d))

    def init_special(self, generator: torch.Generator) -> None:
        """DSS-EXP-style initialisation: Delta log-uniform in [1e-3, 1e-1], Re Lambda = -1/2,
        Im Lambda = pi n, W ~ N(0, 1/2) per part, D ~ N(0, 1)."""
        d, n = self.Lambda_re.shape
        u = torch.rand(d, generator=generator, dtype=torch.float64)
        self.log_dt.copy_(math.log(1e-3) + u * (math.log(1e-1) - math.log(1e-3)))
        self.Lambda_re.fill_(math.log(0.5))
        self.Lambda_im.copy_(math.pi * torch.arange(n, dtype=torch.float64).repeat(d, 1))
        self.W_re.copy_(torch.randn(d, n, generator=generator, dtype=torch.float64) * 0.5**0.5)
        self.W_im.copy_(torch.randn(d, n, generator=generator, dtype=torch.float64) * 0.5**0.5)
        self.D.copy_(torch.randn(d, generator=generator, dtype=torch.float64))

    def modes(self):
        Lam = torch.complex(-torch.exp(self.Lambda_re), self.Lambda_im)
        dtLam = Lam * torch.exp(self.log_dt)[:, None]
        W = torch.complex(self.W_re, self.W_im)
        return dtLam, W * (torch.exp(dtLam) - 1) / Lam  # (d, n) each

    def kernel(self, length: int) -> torch.Tensor:
        """The causal convolution kernel ``K[c, l]`` for l < length."""
        dtLam, coef = self.modes()
        steps = torch.arange(length, device=dtLam.device, dtype=self.log_dt.dtype)
        return torch.einsum("dn,dnl->dl", coef, torch.exp(dtLam[..., None] * steps)).real

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        B, L, d = u.shape
        K = self.kernel(L)
        n = 2 * L
        y = torch.fft.irfft(torch.fft.rfft(u.transpose(1, 2), n) * torch.fft.rfft(K, n), n)[..., :L].transpose(1, 2)
        y = y + u * self.D
        return F.gelu(y) @ self.W_out + self.b_out


def dss_recurrence(layer: DSS, u: torch.Tensor) -> torch.Tensor:
    """The DSS layer's convolution computed as its recurrence, step by step (the reference)."""
    validate.instance("dss_recurrence", "layer", layer, DSS)
    _check_sequence("dss_recurrence", "u", u, layer.D.shape[0])
    dtLam, coef = layer.modes()
    W = torch.complex(layer.W_re, layer.W_im)
    decay = torch.exp(dtLam)
    s = torch.zeros(u.shape[0], *dtLam.shape, dtype=dtLam.dtype)
    ys = []
    for u_t in u.unbind(1):
        s = decay * s + (coef / W) * u_t[..., None]
        ys.append((W * s).sum(-1).real)
    y = torch.stack(ys, 1) + u * layer.D
    return F.gelu(y) @ layer.W_out + layer.b_out


# ----------------------------------------------------------------------------- Mamba
class Mamba(nn.Module):
    def __init__(self, c: SSMConfig):
        validate.instance("Mamba", "c", c, SSMConfig)
        super().__init__()
        d, di, n = c.d_model, c.expand * c.d_model, c.d_state
        self.dt_rank = math.ceil(d / 16)
        self.W_in = nn.Parameter(torch.empty(d, 2 * di))
        self.conv = nn.Parameter(torch.empty(di, c.d_conv))
        self.b_conv = nn.Parameter(torch.zeros(di))
        self.W_x = nn.Parameter(torch.empty(di, self.dt_rank + 2 * n))
        self.W_dt = nn.Parameter(torch.empty(self.dt_rank, di))
        self.dt_bias = nn.Parameter(torch.empty(di))
        self.A_log = nn.Parameter(torch.empty(di, n))
        self.D = nn.Parameter(torch.empty(di))
        self.W_out = nn.Parameter(torch.empty(di, d))
        self.d_state, self.d_conv, self.scan = n, c.d_conv, c.scan

    def init_special(self, generator: torch.Generator) -> None:
        """Mamba's initialisation: A = -(1..N) per channel, dt = softplus(dt_bias) log-uniform in
        [1e-3, 1e-1], D = 1, the depthwise convolution ~ N(0, 1/d_conv)."""
        di, n = self.A_log.shape
        self.A_log.copy_(torch.log(torch.arange(1, n + 1, dtype=torch.float64)).repeat(di, 1))
        u = torch.rand(di, generator=generator, dtype=torch.float64)
        dt = torch.exp(math.log(1e-3) + u * (math.log(1e-1) - math.log(1e-3)))
        self.dt_bias.copy_(dt + torch.log(-torch.expm1(-dt)))  # softplus^-1(dt)
        self.D.fill_(1.0)
        self.conv.copy_(torch.randn(self.conv.shape, generator=generator, dtype=torch.float64) * self.d_conv**-0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, L, _ = x.shape
        u, z = (x @ self.W_in).chunk(2, dim=-1)  # (B, L, di) each
        padded = F.pad(u.transpose(1, 2), (self.d_conv - 1, 0))  # causal depthwise convolution
        conv = (padded.unfold(-1, self.d_conv, 1) * self.conv[:, None, :]).sum(-1) + self.b_conv[:, None]
        u = F.silu(conv).transpose(1, 2)  # (B, L, di)
        dbc = u @ self.W_x
        dt, Bm, Cm = dbc.split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(dt @ self.W_dt + self.dt_bias)  # (B, L, di)
        A = -torch.exp(self.A_log)  # (di, n)
        y = SCANS[self.scan](u, dt, A, Bm, Cm) + u * self.D
        return (y * F.silu(z)) @ self.W_out


def _check_sequence(owner: str, name: str, x, width: int) -> None:
    """``x`` is a floating ``(B, L, width)`` tensor."""
    validate.instance(owner, name, x, torch.Tensor)
    if x.dim() != 3 or x.shape[-1] != width:
        validate.fail(owner, name, f"a tensor of shape (batch, length, {width})", f"shape {tuple(x.shape)}")
    if not x.dtype.is_floating_point:
        validate.fail(owner, name, "a floating-point tensor", x.dtype, validate.ArgumentTypeError)


def selective_scan(u, dt, A, Bm, Cm, scan: str = "loop") -> torch.Tensor:
    """``h_t = exp(dt_t A) h_{t-1} + dt_t B_t u_t``, ``y_t = h_t C_t`` (Gu & Dao 2023, Sec. 3.2,
    Algorithm 2), computed by ``scan`` (:data:`SCAN_NAMES`; the three agree to rounding);
    u, dt: (B, L, di); A: (di, n); Bm, Cm: (B, L, n). Returns (B, L, di)."""
    validate.choice("selective_scan", "scan", scan, SCAN_NAMES)
    for name, value in (("u", u), ("dt", dt), ("A", A), ("Bm", Bm), ("Cm", Cm)):
        validate.instance("selective_scan", name, value, torch.Tensor)
        if not value.dtype.is_floating_point:
            validate.fail("selective_scan", name, "a floating-point tensor", value.dtype, validate.ArgumentTypeError)
    if u.dim() != 3:
        validate.fail("selective_scan", "u", "a tensor of shape (B, L, di)", f"shape {tuple(u.shape)}")
    B, L, di = u.shape
    if A.dim() != 2 or A.shape[0] != di:
        validate.fail("selective_scan", "A", f"a tensor of shape ({di}, n)", f"shape {tuple(A.shape)}")
    n = A.shape[1]
    for name, value, shape in (("dt", dt, (B, L, di)), ("Bm", Bm, (B, L, n)), ("Cm", Cm, (B, L, n))):
        if tuple(value.shape) != shape:
            validate.fail("selective_scan", name, f"a tensor of shape {shape}", f"shape {tuple(value.shape)}")
    validate.memory("selective_scan", f"the discretised state (B x L x di x n = {B * L * di * n:.1e} numbers, twice)",
                    2.0 * B * L * di * n * u.element_size())
    return SCANS[scan](u, dt, A, Bm, Cm)


def _scan(u, dt, A, Bm, Cm) -> torch.Tensor:
    """:func:`selective_scan` without the checks (the Mamba layer's forward calls it every step)."""
    dA = torch.exp(dt[..., None] * A)  # (B, L, di, n)
    dBu = dt[..., None] * Bm[:, :, None, :] * u[..., None]
    h = torch.zeros_like(dA[:, 0])
    ys = []
    for dA_t, dBu_t, C_t in zip(dA.unbind(1), dBu.unbind(1), Cm.unbind(1)):
        h = dA_t * h + dBu_t
        ys.append((h * C_t[:, None, :]).sum(-1))
    return torch.stack(ys, dim=1)


class _FusedScan(torch.autograd.Function):
    """The recurrence one step at a time with the states ``h_t`` as the only full-size tensor kept,
    and its backward written out: ``g_t = dL/dh_t = gy_t C_t + exp(dt_{t+1} A) g_{t+1}`` (the same
    recurrence run backwards), ``dL/d(dt_t A) = g_t h_{t-1} exp(dt_t A)``, ``dL/d(dt_t u_t) =
    g_t . B_t``, ``dL/dB_t = sum_c g_t[c] dt_t[c] u_t[c]``, ``dL/dC_t = gy_t . h_t``. Each step
    touches ``(G, B, di, n)`` tensors only (which stay in cache), where the loop under autograd
    materialises ``exp(dt A)`` and ``dt B u`` for all steps. Shapes carry a group axis G (one A
    per group): u, dt (G, B, L, di); A (G, di, n); Bm, Cm (G, B, L, n). Under ``vmap`` (the
    trainer's ensembles) the members become the groups, so the loop runs once for all of them."""

    @staticmethod
    def forward(u, dt, A, Bm, Cm):
        h = u.new_zeros(*u.shape[:2], u.shape[3], A.shape[-1])
        A = A[:, None]
        hs, ys = [], []
        for u_t, dt_t, B_t, C_t in zip(u.unbind(2), dt.unbind(2), Bm.unbind(2), Cm.unbind(2)):
            h = torch.addcmul(torch.exp(dt_t[..., None] * A) * h, (dt_t * u_t)[..., None], B_t[..., None, :])
            hs.append(h)
            ys.append(torch.einsum("gbdn,gbn->gbd", h, C_t))
        return torch.stack(ys, 2), torch.stack(hs, 2)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs, output[1])
        ctx.mark_non_differentiable(output[1])

    @staticmethod
    def backward(ctx, gy, _):
        u, dt, A, Bm, Cm, hs = ctx.saved_tensors
        g = torch.zeros_like(hs[:, :, 0])
        gA = torch.zeros_like(A)
        gu, gdt, gB, gC = [], [], [], []
        for t in range(u.shape[2] - 1, -1, -1):
            gy_t, dt_t, u_t, B_t = gy[:, :, t], dt[:, :, t], u[:, :, t], Bm[:, :, t]
            gC.append(torch.einsum("gbd,gbdn->gbn", gy_t, hs[:, :, t]))
            g = torch.addcmul(g, gy_t[..., None], Cm[:, :, t, None, :])
            gx = torch.einsum("gbdn,gbn->gbd", g, B_t)  # dL/d(dt_t u_t)
            gB.append(torch.einsum("gbd,gbdn->gbn", dt_t * u_t, g))
            gu.append(gx * dt_t)
            if t == 0:
                gdt.append(gx * u_t)
                break
            decay = torch.exp(dt_t[..., None] * A[:, None])
            g_log = g * hs[:, :, t - 1] * decay  # dL/d(dt_t A)
            gdt.append(torch.addcmul(torch.einsum("gbdn,gdn->gbd", g_log, A), gx, u_t))
            gA = gA + torch.einsum("gbdn,gbd->gdn", g_log, dt_t)
            g = g * decay
        return tuple(torch.stack(v[::-1], 2) for v in (gu, gdt)) + (gA,) + tuple(
            torch.stack(v[::-1], 2) for v in (gB, gC))

    @staticmethod
    def vmap(info, in_dims, *args):
        """The vmapped dimension becomes the group axis (an unbatched input is expanded)."""
        k = info.batch_size
        flat = [(x.movedim(d, 0) if d is not None else x.expand(k, *x.shape)).flatten(0, 1)
                for x, d in zip(args, in_dims)]
        y, hs = _FusedScan.apply(*flat)
        return (y.unflatten(0, (k, -1)), hs.unflatten(0, (k, -1))), (0, 0)


def _fused_scan(u, dt, A, Bm, Cm) -> torch.Tensor:
    """:func:`selective_scan` by :class:`_FusedScan` (one group), without the checks; without
    gradients (evaluation) the same steps keep no states at all."""
    if torch.is_grad_enabled():
        return _FusedScan.apply(u[None], dt[None], A[None], Bm[None], Cm[None])[0][0]
    h = u.new_zeros(u.shape[0], u.shape[2], A.shape[-1])
    ys = []
    for u_t, dt_t, B_t, C_t in zip(u.unbind(1), dt.unbind(1), Bm.unbind(1), Cm.unbind(1)):
        h = torch.addcmul(torch.exp(dt_t[..., None] * A) * h, (dt_t * u_t)[..., None], B_t[..., None, :])
        ys.append(torch.einsum("bdn,bn->bd", h, C_t))
    return torch.stack(ys, 1)


def chunk_length(length: int) -> int:
    """The chunk of :func:`_chunked_scan`: ceil(sqrt(L)) steps, so that the loops within and across
    chunks are both about sqrt(L) long."""
    return max(1, math.isqrt(length - 1) + 1) if length > 1 else 1


def _chunked_scan(u, dt, A, Bm, Cm) -> torch.Tensor:
    """:func:`selective_scan` in chunks of c = :func:`chunk_length` steps, every chunk at once: the
    state from a zero start within each chunk (a loop of c steps over all chunks together), the
    decay from the chunk's start ``P_t = exp(sum_{s<=t} dt_s A)`` (a cumulative sum of numbers
    <= 0, so ``P`` lies in [0, 1]: no overflow however long the chunk), then the carried states
    across chunks (a loop of L / c steps) and ``h_t = h_t^local + P_t h_start``. The parallel
    depth is about 2 sqrt(L) steps instead of L; on a CPU it does more memory traffic than the
    loop (measured slower), on a GPU the fewer sequential steps are what count."""
    batch, L, di = u.shape
    n = A.shape[-1]
    c = chunk_length(L)
    nc = -(-L // c)
    pad = nc * c - L  # padded steps sit after the last real one, so they change nothing before it
    log_decay = F.pad(dt[..., None] * A, (0, 0, 0, 0, 0, pad)).reshape(batch, nc, c, di, n)
    b = F.pad((dt * u)[..., None] * Bm[:, :, None, :], (0, 0, 0, 0, 0, pad)).reshape(batch, nc, c, di, n)
    P = torch.exp(torch.cumsum(log_decay, dim=2))
    decay = torch.exp(log_decay)
    local = [b[:, :, 0]]
    for t in range(1, c):
        local.append(decay[:, :, t] * local[-1] + b[:, :, t])
    h_local = torch.stack(local, 2)
    carry, starts = torch.zeros_like(h_local[:, 0, 0]), []
    for k in range(nc):
        starts.append(carry)
        carry = P[:, k, -1] * carry + h_local[:, k, -1]
    h = h_local + P * torch.stack(starts, 1)[:, :, None]
    C = F.pad(Cm, (0, 0, 0, pad)).reshape(batch, nc, c, n)
    return (h @ C[..., None])[..., 0].reshape(batch, nc * c, di)[:, :L]


#: the scans by name (:data:`SCAN_NAMES`)
SCANS = {"loop": _scan, "fused": _fused_scan, "chunked": _chunked_scan}


# ----------------------------------------------------------------------------- retention
class Retention(nn.Module):
    def __init__(self, c: SSMConfig):
        validate.instance("Retention", "c", c, SSMConfig)
        super().__init__()
        d = c.d_model
        self.n_heads, self.linear = c.n_heads, c.mixer == "linear"
        self.W_qkv = nn.Parameter(torch.empty(d, 3 * d))
        self.W_o = nn.Parameter(torch.empty(d, d))
        if not self.linear:
            self.W_g = nn.Parameter(torch.empty(d, d))
            self.ln_group = nn.GroupNorm(c.n_heads, d)
        gammas = torch.ones(c.n_heads) if self.linear else 1 - 2.0 ** (-5 - torch.arange(c.n_heads, dtype=torch.float64))
        self.register_buffer("gamma", gammas.float())

    def decay(self, L: int, dtype) -> torch.Tensor:
        """``D[h, t, s] = gamma_h^(t - s)`` for s <= t, else 0."""
        t = torch.arange(L, device=self.gamma.device)
        lag = (t[:, None] - t[None, :]).clamp(min=0).to(dtype)
        return (self.gamma.to(dtype)[:, None, None] ** lag) * (t[:, None] >= t[None, :])

    def heads(self, x: torch.Tensor):
        B, L, d = x.shape
        q, k, v = (x @ self.W_qkv).view(B, L, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        return q / math.sqrt(d // self.n_heads), k, v  # (B, h, L, dh) each

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, L, d = x.shape
        q, k, v = self.heads(x)
        o = ((q @ k.transpose(-1, -2)) * self.decay(L, x.dtype)) @ v  # (B, h, L, dh)
        o = o.transpose(1, 2).reshape(B, L, d)
        if not self.linear:
            o = self.ln_group(o.reshape(B * L, d)).view(B, L, d) * F.silu(x @ self.W_g)
        return o @ self.W_o


def retention_recurrence(layer: Retention, x: torch.Tensor) -> torch.Tensor:
    """The retention / linear attention mixer in its recurrent form, ``S_t = gamma S_{t-1} +
    k_t^T v_t``, ``o_t = q_t S_t`` (the reference for the parallel form)."""
    validate.instance("retention_recurrence", "layer", layer, Retention)
    _check_sequence("retention_recurrence", "x", x, layer.W_qkv.shape[0])
    B, L, d = x.shape
    q, k, v = layer.heads(x)
    gamma = layer.gamma.to(x.dtype)[None, :, None, None]
    S = torch.zeros(B, layer.n_heads, k.shape[-1], v.shape[-1], dtype=x.dtype)
    outs = []
    for t in range(L):
        S = gamma * S + k[:, :, t, :, None] * v[:, :, t, None, :]
        outs.append((q[:, :, t, None, :] @ S)[:, :, 0])
    o = torch.stack(outs, dim=2).transpose(1, 2).reshape(B, L, d)
    if not layer.linear:
        o = layer.ln_group(o.reshape(B * L, d)).view(B, L, d) * F.silu(x @ layer.W_g)
    return o @ layer.W_o


# ----------------------------------------------------------------------------- the model
MIXER_CLASSES = {"dss": DSS, "mamba": Mamba, "retnet": Retention, "linear": Retention}


class SSMBlock(nn.Module):
    def __init__(self, c: SSMConfig):
        validate.instance("SSMBlock", "c", c, SSMConfig)
        super().__init__()
        self.ln_mix = nn.LayerNorm(c.d_model)
        self.mixer = MIXER_CLASSES[c.mixer](c)
        if c.d_mlp:
            self.ln_mlp = nn.LayerNorm(c.d_model)
            self.W_mlp_in = nn.Parameter(torch.empty(c.d_model, c.d_mlp))
            self.b_mlp_in = nn.Parameter(torch.zeros(c.d_mlp))
            self.W_mlp_out = nn.Parameter(torch.empty(c.d_mlp, c.d_model))
            self.b_mlp_out = nn.Parameter(torch.zeros(c.d_model))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        h = h + self.mixer(self.ln_mix(h))
        if hasattr(self, "ln_mlp"):
            h = h + F.gelu(self.ln_mlp(h) @ self.W_mlp_in + self.b_mlp_in) @ self.W_mlp_out + self.b_mlp_out
        return h


class SSMModel(Model):
    def __init__(self, config: SSMConfig, seed: int | None = 0):
        validate.instance("SSMModel", "config", config, SSMConfig)
        check_seed("SSMModel", seed)
        super().__init__()
        self.config = config
        add_input_weights(self, config)
        self.layers = nn.ModuleList(SSMBlock(config) for _ in range(config.n_layers))
        self.ln_final = nn.LayerNorm(config.d_model)
        add_readout_weights(self, config.d_model, config.n_out, config.readout_bias)
        self.reset_parameters(seed)

    def reset_parameters(self, seed: int | None = 0) -> None:
        """The shared rule (:meth:`Model.reset_parameters`) for matrices, biases and norms; each
        mixer's own parameters (steps, decay rates, modes) from its ``init_special``, drawn from
        the same seeded generator."""
        check_seed("SSMModel.reset_parameters", seed)
        generator = torch.Generator().manual_seed(0 if seed is None else seed)
        init_std = self.config.init_std
        special = {id(p) for layer in self.layers for name, p in layer.mixer.named_parameters()
                   if p.dim() < 2 or name in ("Lambda_re", "Lambda_im", "W_re", "W_im", "A_log", "conv")}
        with torch.no_grad():
            for name, p in self.named_parameters():
                if id(p) in special:
                    continue
                if name.startswith("b_") or ".b_" in name:
                    p.zero_()
                elif "ln_" in name:
                    p.fill_(1.0 if name.endswith("weight") else 0.0)
                else:
                    std = init_std if init_std is not None else p.shape[-2] ** -0.5
                    p.copy_(torch.randn(p.shape, generator=generator, dtype=torch.float64).to(p.dtype) * std)
            for layer in self.layers:
                if hasattr(layer.mixer, "init_special"):
                    layer.mixer.init_special(generator)

    def forward(self, x: torch.Tensor, cache: dict | None = None) -> torch.Tensor:
        h = embed(self, self.config, x, self.W_U.dtype)
        for i, block in enumerate(self.layers):
            h = block(h)
            if cache is not None:
                cache[f"layers.{i}.resid_post"] = h.detach()
        h = self.ln_final(h)
        if self.config.readout == "last":
            h = h[:, -1]
        return read_out(self, h, self.config.readout_bias)
