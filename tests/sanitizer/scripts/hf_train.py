"""A one-layer BERT regressor (built from a config, nothing downloaded) trained by the
transformers Trainer for 12 steps. `fault`: one sample's label is NaN (a corrupt row;
expected: nonfinite_loss). `raise`: the model raises at its 3rd training forward.
`callback REPORT`: watched through SanitizerCallback under plain python; without it,
run under `python -m sanitizer`."""
import sys
import tempfile

import torch
import transformers

args = sys.argv[1:]


class Regressor(transformers.BertForSequenceClassification):
    calls = 0

    def forward(self, **inputs):
        if self.training:
            Regressor.calls += 1
            if "raise" in args and Regressor.calls == 3:
                raise RuntimeError("failure inside the model's forward")
        return super().forward(**inputs)


def main() -> None:
    transformers.set_seed(0)
    config = transformers.BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=16, num_labels=1,
                                     problem_type="regression")
    model = Regressor(config)
    generator = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 64, (96, 8), generator=generator)
    labels = tokens.float().mean(dim=1) / 64
    if "fault" in args:
        labels[37] = float("nan")
    rows = [{"input_ids": t, "attention_mask": torch.ones(8, dtype=torch.long), "labels": y}
            for t, y in zip(tokens, labels)]
    callbacks = []
    if "callback" in args:
        from sanitizer.integrations.hf import SanitizerCallback
        callbacks.append(SanitizerCallback(report=args[args.index("callback") + 1]))
    with tempfile.TemporaryDirectory() as output:
        training = transformers.TrainingArguments(
            output_dir=output, per_device_train_batch_size=8, num_train_epochs=1, learning_rate=1e-3,
            logging_steps=4, save_strategy="no", report_to=[], use_cpu=True, seed=0,
            disable_tqdm=True, remove_unused_columns=False)
        trainer = transformers.Trainer(model=model, args=training, train_dataset=rows, callbacks=callbacks)
        result = trainer.train()
    print("trained", result.global_step)


if __name__ == "__main__":
    main()
