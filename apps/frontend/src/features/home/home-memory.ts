import { z } from "zod";
import { readLocal, writeLocal } from "../../shared/lib/local-store.ts";

/** Whether Weft opens on Home when no workflow was left open (this browser's choice; on by default). */
export const HOME_AT_START_KEY = "weft.home.atStart";
/** The guided tour was dismissed in this browser. */
const TOUR_DONE_KEY = "weft.home.tourDone";

export const homeAtStart = (): boolean => readLocal(HOME_AT_START_KEY, z.boolean()) ?? true;
export const setHomeAtStart = (on: boolean) => writeLocal(HOME_AT_START_KEY, on);
export const tourDone = (): boolean => readLocal(TOUR_DONE_KEY, z.boolean()) ?? false;
export const setTourDone = (done: boolean) => writeLocal(TOUR_DONE_KEY, done);
