import type { TopicRoute } from '../source/topic-source.registry.js';
import { TopicState } from './topic.state.js';

/** The topics this instance serves, and the linger that keeps an unwatched one open for a while. */
export class TopicTable {
  private readonly topics = new Map<string, TopicState>();

  constructor(
    private readonly lingerMs: number,
    private readonly expire: (state: TopicState) => void,
  ) {}

  get(topic: string): TopicState | undefined {
    return this.topics.get(topic);
  }

  all(): TopicState[] {
    return [...this.topics.values()];
  }

  /** The topic's state, created and activated by the first caller only; a pending linger is cancelled. */
  want(topic: string, route: TopicRoute, activate: (state: TopicState) => Promise<void>): TopicState {
    let state = this.topics.get(topic);
    if (!state) {
      state = new TopicState(topic, route);
      this.topics.set(topic, state);
      state.ready = activate(state);
      state.ready.catch(() => undefined); // callers of subscribe see the error; this copy must not go unhandled
    }
    clearTimeout(state.lingerTimer);
    state.lingerTimer = undefined;
    return state;
  }

  /** Starts the linger once nobody watches or waits for the topic. */
  lingerIfIdle(state: TopicState): void {
    if (state.mode === 'closed' || state.subscribers.size > 0 || state.joining > 0 || state.lingerTimer) return;
    state.lingerTimer = setTimeout(() => {
      state.lingerTimer = undefined;
      if (state.subscribers.size === 0 && state.joining === 0) this.expire(state);
    }, this.lingerMs);
    state.lingerTimer.unref();
  }

  remove(state: TopicState): void {
    clearTimeout(state.lingerTimer);
    state.lingerTimer = undefined;
    if (this.topics.get(state.name) === state) this.topics.delete(state.name);
  }
}
