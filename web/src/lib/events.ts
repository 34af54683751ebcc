// The run's event stream (Server-Sent Events). While the daemon is unreachable (restart)
// EventSource retries by itself and resends Last-Event-ID. When the browser gives the
// stream up (the daemon answered with an error status) a fresh EventSource is opened after
// a pause; it cannot carry the id (and unknown query parameters are refused), so the page
// re-reads what it may have missed (onReconnect).
import type { RunEvent } from '../api/client';

// ended: the run was deleted (its last event); the stream is closed for good.
export type StreamStatus = 'connecting' | 'open' | 'reconnecting' | 'ended';

export interface RunStreamHandlers {
  onEvent(type: string, ev: RunEvent, id: string): void;
  onStatus(s: StreamStatus): void;
  onReconnect(): void; // after the stream was lost and came back
}

export class RunStream {
  private es: EventSource | null = null;
  private closed = false;
  private lost = false;
  private timer = 0;
  lastId = '';

  constructor(
    private readonly url: string,
    private readonly handlers: RunStreamHandlers,
  ) {
    this.open();
  }

  private open(): void {
    if (this.closed) return;
    this.handlers.onStatus(this.lost ? 'reconnecting' : 'connecting');
    const es = new EventSource(this.url);
    this.es = es;
    const handle = (type: string) => (m: MessageEvent) => {
      if (m.lastEventId) this.lastId = m.lastEventId;
      let data: RunEvent;
      try {
        data = JSON.parse(m.data) as RunEvent;
      } catch {
        return;
      }
      this.handlers.onEvent(type, data, m.lastEventId);
      if (type === 'deleted') {
        // nothing follows; reconnecting would only meet 404s
        this.close();
        this.handlers.onStatus('ended');
      }
    };
    for (const t of ['progress', 'new_best', 'state', 'deleted']) es.addEventListener(t, handle(t) as EventListener);
    es.onopen = () => {
      this.handlers.onStatus('open');
      if (this.lost) {
        this.lost = false;
        this.handlers.onReconnect();
      }
    };
    es.onerror = () => {
      this.lost = true;
      this.handlers.onStatus('reconnecting');
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        this.timer = window.setTimeout(() => this.open(), 2000);
      }
    };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.es?.close();
  }
}
