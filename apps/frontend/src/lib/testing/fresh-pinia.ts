import { createPinia, setActivePinia, type Pinia } from "pinia";

/** A new, active pinia: each store test starts from the stores' initial state, as a page load does. */
export function freshPinia(): Pinia {
  const pinia = createPinia();
  setActivePinia(pinia);
  return pinia;
}
