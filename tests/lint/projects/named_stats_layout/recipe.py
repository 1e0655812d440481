"""PPO and GRPO steps that return their statistics in named tuples of another
module, kept in lists across the optimisation epochs: the first two keep the
back-propagated loss (its graph), the last two keep it detached; the loss is
also read from them by its field's name, and through the loop variable of a loop
or a comprehension over a list of them."""
import torch

from rlhf import GRPOStats, PPOStats


class Recipe:
    def ppo_step(self, batch):
        loss, policy_loss, value_loss = self.loss_fn(self.policy(batch), batch)
        loss.backward()
        with torch.no_grad():
            approx_policy_kls = (self.policy(batch) - batch).pow(2).mean()
        return PPOStats(loss, policy_loss.detach(), value_loss.detach(), approx_policy_kls)

    def grpo_step(self, batch):
        loss, policy_loss, kl_loss = self.loss_fn(self.policy(batch), batch)
        stats = GRPOStats(policy_loss=policy_loss.detach(), kl_loss=kl_loss.detach(), loss=loss)
        loss.backward()
        return stats

    def ppo_step_detached(self, batch):
        loss, policy_loss, value_loss = self.loss_fn(self.policy(batch), batch)
        loss.backward()
        return PPOStats(loss.detach(), policy_loss.detach(), value_loss.detach(), loss.detach() * 0)

    def grpo_step_detached(self, batch):
        loss, policy_loss, kl_loss = self.loss_fn(self.policy(batch), batch)
        loss.backward()
        return GRPOStats(loss.detach(), policy_loss.detach(), kl_loss.detach())

    def train(self, batches, ppo_epochs):
        for step, batch in enumerate(batches):
            ppo_stats, grpo_stats, quiet_ppo, quiet_grpo = [], [], [], []
            for _ in range(ppo_epochs):
                ppo_stats.append(self.ppo_step(batch))  # expect: TL202
                step_stats = self.grpo_step(batch)
                grpo_stats.append(step_stats)  # expect: TL202
                quiet_ppo.append(self.ppo_step_detached(batch))
                quiet_grpo.append(self.grpo_step_detached(batch))
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.log(ppo_stats, grpo_stats, quiet_ppo, quiet_grpo)

    def train_by_field(self, batches):
        losses, kept, total = [], [], 0.0
        for batch in batches:
            stats = self.grpo_step(batch)
            losses.append(stats.loss)  # expect: TL202
            total += self.ppo_step(batch).loss  # expect: TL202
            kept.append(stats.kl_loss)
            kept.append(self.ppo_step_detached(batch).loss)
            total += self.grpo_step_detached(batch).loss
            total += stats.loss.item()
            self.optimizer.step()
            self.optimizer.zero_grad()
        self.log(losses, kept, total)

    def train_in_minibatches(self, batches):
        total, running, quiet, seen = 0.0, 0.0, 0.0, []
        for batch in batches:
            stats = [self.ppo_step(mb) for mb in batch.split(2)]
            detached = [self.grpo_step_detached(mb) for mb in batch.split(2)]
            self.optimizer.step()
            self.optimizer.zero_grad()
            total += sum(s.loss for s in stats)  # expect: TL202
            for s in stats:
                running += s[0]  # expect: TL202
                quiet += s.policy_loss
                quiet += s.loss.item()
            quiet += sum(d.loss for d in detached)
            seen.append(self.grpo_step(batch))  # expect: TL202
            quiet += sum(s.loss for s in seen)
        self.log(total, running, quiet)
