"""The VITS generator as Piper uses it (Kim et al., ICML 2021, fig. 1).

``Synthesizer`` holds, under Piper's attribute names: ``enc_p`` (text encoder, the
prior), ``dp`` (duration predictor), ``flow`` (normalizing flow between prior and
posterior latents), ``enc_q`` (posterior encoder, training only), ``dec`` (HiFi-GAN
decoder) and, with several speakers, ``emb_g``. Inference (paper, sec. 2.6):

    phoneme_ids -> enc_p -> (m_p, logs_p) per phoneme; dp -> durations (frames)
    expand to frames; z_p = m_p + eps * exp(logs_p) * noise_scale
    z = flow^-1(z_p); audio = dec(z)          (hop_length samples per frame)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from engines.torch.vits import attentions, modules
from engines.torch.vits.commons import durations_to_indices, sequence_mask
from engines.torch.vits.config import VitsConfig
from engines.torch.vits.weight_norm import WNConvTranspose1d


class TextEncoder(nn.Module):
    """Phoneme ids ``[B, T_ph]`` -> hidden ``[B, H, T_ph]`` and prior mean / log-std ``[B, C, T_ph]``."""

    def __init__(
        self,
        n_vocab: int,
        out_channels: int,
        hidden_channels: int,
        filter_channels: int,
        n_heads: int,
        n_layers: int,
        kernel_size: int,
        p_dropout: float,
    ) -> None:
        super().__init__()
        self.out_channels, self.hidden_channels = out_channels, hidden_channels
        self.emb = nn.Embedding(n_vocab, hidden_channels)
        nn.init.normal_(self.emb.weight, 0.0, hidden_channels**-0.5)
        self.encoder = attentions.Encoder(hidden_channels, filter_channels, n_heads, n_layers, kernel_size, p_dropout)
        self.proj = nn.Conv1d(hidden_channels, out_channels * 2, 1)

    def forward(self, x: torch.Tensor, x_lengths: torch.Tensor):
        """Returns ``(x [B, H, T], m [B, C, T], logs [B, C, T], x_mask [B, 1, T])``."""
        x = (self.emb(x) * math.sqrt(self.hidden_channels)).transpose(1, -1)
        x_mask = sequence_mask(x_lengths, x.shape[2]).unsqueeze(1).to(x.dtype)
        x = self.encoder(x * x_mask, x_mask)
        m, logs = torch.split(self.proj(x) * x_mask, self.out_channels, dim=1)
        return x, m, logs, x_mask


class StochasticDurationPredictor(nn.Module):
    """Flow-based duration model (paper, sec. 2.3 and appendix B.2): log-durations from noise, given the text.

    ``flows`` model durations at inference; ``post_*`` is the variational posterior
    used only in training. Inference runs the flows backwards and skips
    ``flows.1`` (its output channel is discarded anyway), as VITS does.
    """

    def __init__(
        self,
        in_channels: int,
        filter_channels: int,
        kernel_size: int,
        p_dropout: float,
        n_flows: int = 4,
        gin_channels: int = 0,
    ) -> None:
        super().__init__()
        filter_channels = in_channels  # as in VITS and Piper: the argument is overridden
        self.log_flow = modules.Log()
        self.flows = nn.ModuleList([modules.ElementwiseAffine(2)])
        self.post_flows = nn.ModuleList([modules.ElementwiseAffine(2)])
        for _ in range(n_flows):
            self.flows.extend([modules.ConvFlow(2, filter_channels, kernel_size, n_layers=3), modules.Flip()])
            self.post_flows.extend([modules.ConvFlow(2, filter_channels, kernel_size, n_layers=3), modules.Flip()])
        self.post_pre = nn.Conv1d(1, filter_channels, 1)
        self.post_proj = nn.Conv1d(filter_channels, filter_channels, 1)
        self.post_convs = modules.DDSConv(filter_channels, kernel_size, n_layers=3, p_dropout=p_dropout)
        self.pre = nn.Conv1d(in_channels, filter_channels, 1)
        self.proj = nn.Conv1d(filter_channels, filter_channels, 1)
        self.convs = modules.DDSConv(filter_channels, kernel_size, n_layers=3, p_dropout=p_dropout)
        if gin_channels:
            self.cond = nn.Conv1d(gin_channels, filter_channels, 1)

    def _condition(self, x, x_mask, g):
        x = self.pre(torch.detach(x))
        if g is not None:
            x = x + self.cond(torch.detach(g))
        return self.proj(self.convs(x, x_mask)) * x_mask

    def forward(self, x, x_mask, w=None, g=None, reverse: bool = False, noise_scale: float = 1.0):
        """Reverse: log-durations ``[B, 1, T_ph]``. Forward (training): NLL bound ``[B]`` of durations ``w``."""
        x = self._condition(x, x_mask, g)
        if reverse:
            flows = list(reversed(self.flows))
            flows = flows[:-2] + [flows[-1]]  # drop the unused flows.1
            z = torch.randn(x.shape[0], 2, x.shape[2], device=x.device, dtype=x.dtype) * noise_scale
            for flow in flows:
                z = flow(z, x_mask, g=x, reverse=True)
            return z[:, :1]
        return self._nll(x, x_mask, w)

    def _nll(self, x, x_mask, w):
        h_w = self.post_proj(self.post_convs(self.post_pre(w), x_mask)) * x_mask
        e_q = torch.randn(w.shape[0], 2, w.shape[2], device=x.device, dtype=x.dtype) * x_mask
        logdet_q: torch.Tensor | float
        z_q, logdet_q = e_q, 0
        for flow in self.post_flows:
            z_q, logdet = flow(z_q, x_mask, g=x + h_w)
            logdet_q = logdet_q + logdet
        z_u, z1 = torch.split(z_q, [1, 1], 1)
        u = torch.sigmoid(z_u) * x_mask
        z0 = (w - u) * x_mask
        logdet_q = logdet_q + torch.sum((F.logsigmoid(z_u) + F.logsigmoid(-z_u)) * x_mask, [1, 2])
        log_q = torch.sum(-0.5 * (math.log(2 * math.pi) + e_q**2) * x_mask, [1, 2]) - logdet_q
        z0, logdet_total = self.log_flow(z0, x_mask)
        z = torch.cat([z0, z1], 1)
        for flow in self.flows:
            z, logdet = flow(z, x_mask, g=x)
            logdet_total = logdet_total + logdet
        nll = torch.sum(0.5 * (math.log(2 * math.pi) + z**2) * x_mask, [1, 2]) - logdet_total
        return nll + log_q


class DurationPredictor(nn.Module):
    """Deterministic duration predictor (FastSpeech-style): log-durations ``[B, 1, T_ph]``."""

    def __init__(
        self, in_channels: int, filter_channels: int, kernel_size: int, p_dropout: float, gin_channels: int = 0
    ) -> None:
        super().__init__()
        self.drop = nn.Dropout(p_dropout)
        self.conv_1 = nn.Conv1d(in_channels, filter_channels, kernel_size, padding=kernel_size // 2)
        self.norm_1 = attentions.LayerNorm(filter_channels)
        self.conv_2 = nn.Conv1d(filter_channels, filter_channels, kernel_size, padding=kernel_size // 2)
        self.norm_2 = attentions.LayerNorm(filter_channels)
        self.proj = nn.Conv1d(filter_channels, 1, 1)
        if gin_channels:
            self.cond = nn.Conv1d(gin_channels, in_channels, 1)

    def forward(self, x, x_mask, g=None, **_ignored):
        x = torch.detach(x)
        if g is not None:
            x = x + self.cond(torch.detach(g))
        x = self.drop(self.norm_1(torch.relu(self.conv_1(x * x_mask))))
        x = self.drop(self.norm_2(torch.relu(self.conv_2(x * x_mask))))
        return self.proj(x * x_mask) * x_mask


class ResidualCouplingBlock(nn.Module):
    """``n_flows`` mean-only affine couplings, each followed by a channel flip (``flow``)."""

    def __init__(
        self,
        channels: int,
        hidden_channels: int,
        kernel_size: int,
        dilation_rate: int,
        n_layers: int,
        n_flows: int = 4,
        gin_channels: int = 0,
    ) -> None:
        super().__init__()
        self.flows = nn.ModuleList()
        for _ in range(n_flows):
            self.flows.append(
                modules.ResidualCouplingLayer(
                    channels,
                    hidden_channels,
                    kernel_size,
                    dilation_rate,
                    n_layers,
                    gin_channels=gin_channels,
                    mean_only=True,
                )
            )
            self.flows.append(modules.Flip())

    def forward(self, x, x_mask, g=None, reverse: bool = False):
        """``x`` ``[B, C, T]``: z -> z_p (training) or, with ``reverse``, z_p -> z."""
        for flow in reversed(self.flows) if reverse else self.flows:
            x = flow(x, x_mask, g=g, reverse=True) if reverse else flow(x, x_mask, g=g)[0]
        return x


class PosteriorEncoder(nn.Module):
    """Linear spectrogram ``[B, spec_channels, T]`` -> posterior latent z ``[B, C, T]`` (training only)."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        hidden_channels: int,
        kernel_size: int,
        dilation_rate: int,
        n_layers: int,
        gin_channels: int = 0,
    ) -> None:
        super().__init__()
        self.out_channels = out_channels
        self.pre = nn.Conv1d(in_channels, hidden_channels, 1)
        self.enc = modules.WN(hidden_channels, kernel_size, dilation_rate, n_layers, gin_channels=gin_channels)
        self.proj = nn.Conv1d(hidden_channels, out_channels * 2, 1)

    def forward(self, x, x_lengths, g=None):
        """Returns ``(z, m, logs, x_mask)``."""
        x_mask = sequence_mask(x_lengths, x.shape[2]).unsqueeze(1).to(x.dtype)
        x = self.enc(self.pre(x) * x_mask, x_mask, g=g)
        m, logs = torch.split(self.proj(x) * x_mask, self.out_channels, dim=1)
        z = (m + torch.randn_like(m) * torch.exp(logs)) * x_mask
        return z, m, logs, x_mask


class Generator(nn.Module):
    """HiFi-GAN decoder (Kong et al., 2020): z ``[B, C, T]`` -> audio ``[B, 1, T * hop_length]`` in [-1, 1]."""

    def __init__(
        self,
        initial_channel: int,
        resblock: str,
        resblock_kernel_sizes,
        resblock_dilation_sizes,
        upsample_rates,
        upsample_initial_channel: int,
        upsample_kernel_sizes,
        gin_channels: int = 0,
    ) -> None:
        super().__init__()
        self.num_kernels = len(resblock_kernel_sizes)
        self.conv_pre = nn.Conv1d(initial_channel, upsample_initial_channel, 7, 1, padding=3)
        block = modules.ResBlock1 if resblock == "1" else modules.ResBlock2
        self.ups = nn.ModuleList()
        self.resblocks = nn.ModuleList()
        channels = upsample_initial_channel
        for i, (rate, kernel) in enumerate(zip(upsample_rates, upsample_kernel_sizes, strict=True)):
            channels = upsample_initial_channel // (2 ** (i + 1))
            up = WNConvTranspose1d(channels * 2, channels, kernel, rate, padding=(kernel - rate) // 2)
            nn.init.normal_(up.weight_v, 0.0, 0.01)
            self.ups.append(up)
            for k, d in zip(resblock_kernel_sizes, resblock_dilation_sizes, strict=True):
                self.resblocks.append(block(channels, k, tuple(d)))
        self.conv_post = nn.Conv1d(channels, 1, 7, 1, padding=3, bias=False)
        if gin_channels:
            self.cond = nn.Conv1d(gin_channels, upsample_initial_channel, 1)

    def forward(self, x: torch.Tensor, g: torch.Tensor | None = None) -> torch.Tensor:
        x = self.conv_pre(x)
        if g is not None:
            x = x + self.cond(g)
        for i, up in enumerate(self.ups):
            x = up(F.leaky_relu(x, modules.LRELU_SLOPE))
            blocks = self.resblocks[i * self.num_kernels : (i + 1) * self.num_kernels]
            x = sum(block(x) for block in blocks) / self.num_kernels
        return torch.tanh(self.conv_post(F.leaky_relu(x)))  # default slope 0.01 here, as in HiFi-GAN


@dataclass
class Prior:
    """One batch after the text encoder and duration predictor, expanded to frames.

    Attributes:
        z_p: prior sample ``[B, C, T]`` (before the reverse flow).
        y_mask: frame mask ``[B, 1, T]``.
        durations: frames per phoneme id ``[B, T_ph]`` (``w_ceil``).
        g: speaker embedding ``[B, gin, 1]`` or ``None``.
    """

    z_p: torch.Tensor
    y_mask: torch.Tensor
    durations: torch.Tensor
    g: torch.Tensor | None


class Synthesizer(nn.Module):
    """The generator: everything Piper's ``SynthesizerTrn`` holds, under the same names."""

    def __init__(self, config: VitsConfig) -> None:
        super().__init__()
        c = self.config = config
        self.enc_p = TextEncoder(
            c.num_symbols,
            c.inter_channels,
            c.hidden_channels,
            c.filter_channels,
            c.n_heads,
            c.n_layers,
            c.kernel_size,
            c.p_dropout,
        )
        self.dec = Generator(
            c.inter_channels,
            c.resblock,
            c.resblock_kernel_sizes,
            c.resblock_dilation_sizes,
            c.upsample_rates,
            c.upsample_initial_channel,
            c.upsample_kernel_sizes,
            c.gin_channels,
        )
        self.enc_q = PosteriorEncoder(c.spec_channels, c.inter_channels, c.hidden_channels, 5, 1, 16, c.gin_channels)
        self.flow = ResidualCouplingBlock(c.inter_channels, c.hidden_channels, 5, 1, 4, gin_channels=c.gin_channels)
        self.dp: StochasticDurationPredictor | DurationPredictor
        if c.use_sdp:
            self.dp = StochasticDurationPredictor(c.hidden_channels, 192, 3, 0.5, 4, gin_channels=c.gin_channels)
        else:
            self.dp = DurationPredictor(c.hidden_channels, 256, 3, 0.5, gin_channels=c.gin_channels)
        if c.num_speakers > 1:
            self.emb_g = nn.Embedding(c.num_speakers, c.gin_channels)

    def speaker(self, sid: torch.Tensor | None) -> torch.Tensor | None:
        """Speaker embedding ``[B, gin, 1]`` (speaker 0 when ``sid`` is None), or None for one speaker."""
        if self.config.num_speakers <= 1:
            return None
        if sid is None:
            sid = torch.zeros(1, dtype=torch.long, device=self.emb_g.weight.device)
        return self.emb_g(sid).unsqueeze(-1)

    def prior(
        self, x, x_lengths, sid=None, noise_scale: float = 0.667, length_scale: float = 1.0, noise_w: float = 0.8
    ) -> Prior:
        """Text encoder, durations and expansion: ``x`` ``[B, T_ph]`` int64 -> :class:`Prior`."""
        h, m_p, logs_p, x_mask = self.enc_p(x, x_lengths)
        g = self.speaker(sid)
        if self.config.use_sdp:
            logw = self.dp(h, x_mask, g=g, reverse=True, noise_scale=noise_w)
        else:
            logw = self.dp(h, x_mask, g=g)
        w_ceil = torch.ceil(torch.exp(logw) * x_mask * length_scale)[:, 0]  # [B, T_ph]
        y_lengths = torch.clamp_min(torch.sum(w_ceil, 1), 1).long()
        y_mask = sequence_mask(y_lengths).unsqueeze(1).to(m_p.dtype)
        index = durations_to_indices(w_ceil, y_mask.shape[2]).unsqueeze(1).expand(-1, m_p.shape[1], -1)
        m = m_p.gather(2, index) * y_mask  # one phoneme index per frame, no dense path
        logs = logs_p.gather(2, index) * y_mask
        z_p = m + torch.randn_like(m) * torch.exp(logs) * noise_scale
        return Prior(z_p, y_mask, w_ceil, g)

    def flow_reverse(self, z_p: torch.Tensor, y_mask: torch.Tensor, g: torch.Tensor | None = None) -> torch.Tensor:
        """z_p -> z ``[B, C, T]``; works on any window of frames given real context around it."""
        return self.flow(z_p, y_mask, g=g, reverse=True)

    def decode(self, z: torch.Tensor, g: torch.Tensor | None = None) -> torch.Tensor:
        """z ``[B, C, T]`` -> audio ``[B, 1, T * hop_length]``."""
        return self.dec(z, g=g)

    def infer(self, x, x_lengths, scales=(0.667, 1.0, 0.8), sid=None) -> torch.Tensor:
        """Whole-sentence inference as Piper's ONNX graph: ``scales`` = (noise_scale, length_scale, noise_w).

        Returns audio ``[B, 1, T * hop_length]`` float in [-1, 1].
        """
        noise_scale, length_scale, noise_w = (float(s) for s in scales)
        prior = self.prior(x, x_lengths, sid, noise_scale, length_scale, noise_w)
        z = self.flow_reverse(prior.z_p, prior.y_mask, prior.g)
        return self.decode(z * prior.y_mask, prior.g)
