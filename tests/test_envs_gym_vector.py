"""``ddz.envs.gym_vector.DdzVectorEnv``: Gymnasium's vector API over ``ddz.VectorEnv`` (whole hands):
made by ``gymnasium.make_vec`` through the ids' ``vector_entry_point``, SAME_STEP autoreset with the
final observation and information in ``info``, the acting seat's reward, the mask in ``info``."""
from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import ddz  # noqa: E402
import ddz.envs  # noqa: E402  (registers the ids)
from ddz.envs.gym_vector import DdzVectorEnv  # noqa: E402


@pytest.mark.parametrize("env_id,variant", [("ddz/Classic-v0", "classic"), ("ddz/TwoPlayer-v0", "two_player"),
                                            ("ddz/Bengbu-v0", "bengbu")])
def test_make_vec_steps_whole_hands_as_the_vector_env(env_id, variant):
    n = 5
    env = gymnasium.make_vec(env_id, num_envs=n)
    assert isinstance(env.unwrapped, DdzVectorEnv)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    rules = ddz.Rules(variant)
    assert env.single_action_space.n == rules.num_actions and env.action_space.shape == (n,)
    twin = ddz.VectorEnv(rules, n, 3)
    obs, info = env.reset(seed=3)
    st = twin.reset()
    np.testing.assert_array_equal(obs, st.obs)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        legal = [np.flatnonzero(m) for m in info["action_mask"]]
        for i, ids in enumerate(legal):
            off = info["legal_offsets"]
            assert ids.tolist() == sorted(info["legal_ids"][off[i]:off[i + 1]].tolist())
        acts = np.array([ids[rng.integers(len(ids))] for ids in legal])
        seats = info["seat"].copy()
        obs, rewards, term, trunc, info = env.step(acts)
        st = twin.step(acts)
        np.testing.assert_array_equal(obs, st.obs)
        np.testing.assert_array_equal(term, st.done)
        assert not trunc.any()
        np.testing.assert_array_equal(rewards, st.reward[np.arange(n), seats])
        np.testing.assert_array_equal(info["rewards"], st.reward)
        for k, i in enumerate(st.terminal.tables):
            finished += 1
            assert info["_final_obs"][i] and info["_final_info"][i]
            np.testing.assert_array_equal(info["final_obs"][i], st.terminal.obs[k, seats[i]])
            fi = info["final_info"][i]
            np.testing.assert_array_equal(fi["scores"], st.terminal.scores[k])
            assert fi["kind"] in ("normal", "void", "special") and fi["landlord"] == st.terminal.landlord[k]
        if "_final_obs" in info:
            assert (info["_final_obs"] == term).all()
    assert finished >= 3
    env.close()


def test_mask_option_reward_convention_and_errors():
    env = ddz.envs.gymnasium_vector_env("classic", 3, mask=False, reward="win")
    with pytest.raises(ddz.ArgumentError, match="reset"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ddz.ArgumentError, match="reset"):
        env.action_masks()
    obs, info = env.reset(seed=1)
    assert "action_mask" not in info and env.action_masks().shape == (3, ddz.Rules.classic().num_actions)
    r = ddz.Rules.classic()
    with pytest.raises(ddz.IllegalAction):
        env.step(np.array([r.pass_id] * 3))  # PASS during the call
    done = False
    for _ in range(500):
        m = env.action_masks()
        obs, rewards, term, trunc, info = env.step(np.array([np.flatnonzero(row)[0] for row in m]))
        if term.any():
            assert set(np.unique(info["rewards"][term])) <= {-1.0, 1.0}
            done = True
            break
    assert done
    with pytest.raises(ddz.ArgumentTypeError):
        ddz.envs.gymnasium_vector_env("classic", 2, mask="yes")
    with pytest.raises(ddz.ArgumentError):
        ddz.envs.gymnasium_vector_env("classic", 0)
