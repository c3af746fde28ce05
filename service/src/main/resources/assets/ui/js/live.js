// Live refresh: each page polls the API every 2 s while it is shown and the tab is visible. A hidden tab polls
// nothing, so an open dashboard costs the queue it watches nothing while nobody looks at it. A refresh starts only
// after the previous one has finished, so a slow API is never asked twice at once.

export const INTERVAL_MS = 2000;

export class Live {
  constructor(refresh, intervalMs = INTERVAL_MS) {
    this.refresh = refresh;
    this.intervalMs = intervalMs;
    this.timer = null;
    this.running = false;
    this.stopped = false;
    this.onVisibility = () => {
      if (document.hidden) this.pause();
      else this.tick();
    };
  }

  start() {
    document.addEventListener('visibilitychange', this.onVisibility);
    this.tick();
    return this;
  }

  stop() {
    this.stopped = true;
    this.pause();
    document.removeEventListener('visibilitychange', this.onVisibility);
  }

  pause() {
    clearTimeout(this.timer);
    this.timer = null;
  }

  async tick() {
    this.pause();
    if (this.stopped || document.hidden || this.running) return;
    this.running = true;
    try {
      await this.refresh();
    } finally {
      this.running = false;
      if (!this.stopped && !document.hidden) this.timer = setTimeout(() => this.tick(), this.intervalMs);
    }
  }
}

/** A value worth fetching less often than the page polls (per-minute history): refetched when older than maxAgeMs. */
export class Cached {
  constructor(load, maxAgeMs) {
    this.load = load;
    this.maxAgeMs = maxAgeMs;
    this.at = 0;
    this.value = undefined;
  }

  async get() {
    if (this.value === undefined || Date.now() - this.at > this.maxAgeMs) {
      this.value = await this.load();
      this.at = Date.now();
    }
    return this.value;
  }
}
