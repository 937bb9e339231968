import { conversationsContract } from "./conversations.contract.ts";
import { documentsContract, workflowsContract } from "./documents.contract.ts";
import { eventsContract } from "./events.contract.ts";
import type { StorageHarness } from "./harness.ts";
import { runsContract } from "./runs.contract.ts";
import { settingsContract } from "./settings.contract.ts";
import { transactionsContract } from "./transactions.contract.ts";

export type { ContractDatabase, StorageHarness } from "./harness.ts";

/** Every repository's contract, one `describe` each: the same suite for every storage engine. */
export function storageContract(harness: StorageHarness): void {
  documentsContract(harness);
  workflowsContract(harness);
  runsContract(harness);
  eventsContract(harness);
  conversationsContract(harness);
  settingsContract(harness);
  transactionsContract(harness);
}
