export { type Clock, systemClock, ManualClock, unixSeconds } from './clock';
