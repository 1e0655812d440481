import torch

from algo import gail


def train_with_gail(agent, rollouts, num_updates):
    discr = gail.Discriminator(10)
    for j in range(num_updates):
        discr.update(rollouts.expert_batches())
        rollouts.rewards = discr.predict_reward(rollouts.obs)  # expect: TL405
        agent.update(rollouts)


def train_with_gail_put_back(agent, rollouts, num_updates):
    discr = gail.TrainingDiscriminator(10)
    for j in range(num_updates):
        discr.update(rollouts.expert_batches())
        rollouts.rewards = discr.predict_reward(rollouts.obs)
        agent.update(rollouts)


def train_with_a_fixed_reward(policy, optimizer, rollouts, num_updates):
    scorer = gail.RewardModel(10)
    for j in range(num_updates):
        rewards = scorer.predict_reward(rollouts.obs)
        loss = -(policy(rollouts.obs) * rewards).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_with_a_pretrained_discriminator(policy, optimizer, rollouts, num_updates):
    discr = gail.Discriminator(10)
    discr.update(rollouts.expert_batches())  # trained once, before the policy
    for j in range(num_updates):
        rewards = discr.predict_reward(rollouts.obs)
        loss = -(policy(rollouts.obs) * rewards).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
