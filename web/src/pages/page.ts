// What every page of the dashboard returns to the router (main.ts): how to tear it down
// (close its event streams and timers) when the user leaves it.
export interface Page {
  dispose?(): void;
}
