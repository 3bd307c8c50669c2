"""The GAN step: how the generator and the discriminators train together (VITS, Kim et al., ICML 2021).

- ``system`` the LightningModule (manual GAN steps, optimizers, schedules); ``generator_forward`` and
  ``generator_losses`` the generator's forward pass and losses (``decoder_losses`` two more on the decoder, a
  fine-tune's); ``discriminators`` (with ``column_conv``, their
  ``(k, 1)`` convolutions); ``losses`` VITS's losses; ``mel`` spectrograms as VITS computes them;
- around the step: ``d_warmup`` fresh discriminators trained alone first, ``anchor`` a fine-tune held near its
  start, ``lr_schedule`` the learning rates per epoch, ``compile`` ``torch.compile`` where it pays,
  ``step_timer`` where the step's time goes.

May import: ``engines``, ``trainer.align``, ``trainer.data.datamodule`` (the batch), ``trainer.events.schema``,
``trainer.run.presets`` (the training settings), ``trainer.start.recovery`` (the parameters inference skips).
"""
