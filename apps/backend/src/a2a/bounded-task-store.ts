import { InMemoryTaskStore, type DefaultRequestHandler } from "@a2a-js/sdk/server";

/** The SDK's task store contract (its type is not exported by name). */
type TaskStore = ConstructorParameters<typeof DefaultRequestHandler>[1];
type Task = Parameters<TaskStore["save"]>[0];
type CallContext = Parameters<TaskStore["save"]>[1];
type ListRequest = Parameters<TaskStore["list"]>[0];
type ListResponse = Awaited<ReturnType<TaskStore["list"]>>;

/** Tasks an agent keeps in one generation: a task is polled for minutes, and each may hold messages of up to 100,000 characters. */
export const TASKS_PER_GENERATION = 256;

/**
 * An agent's A2A tasks in this process, bounded. The SDK's in-memory store keeps every task for the life of the process,
 * so a busy agent (or one user sending many messages) would grow the server's memory without end. Tasks are kept in two
 * generations of at most `perGeneration` each: when the newer one is full it becomes the older and the older is dropped,
 * so a task updated or read recently stays readable. A dropped task's `GetTask` answers "not found"; its conversation
 * stays stored. `ListTasks` lists the newer generation.
 */
export class BoundedTaskStore implements TaskStore {
  private current = new InMemoryTaskStore();
  private previous = new InMemoryTaskStore();
  private idsInCurrent = new Set<string>();

  constructor(private readonly perGeneration = TASKS_PER_GENERATION) {}

  async load(taskId: string, context: CallContext): Promise<Task | undefined> {
    return (await this.current.load(taskId, context)) ?? (await this.previous.load(taskId, context));
  }

  async save(task: Task, context: CallContext): Promise<void> {
    if (!this.idsInCurrent.has(task.id)) {
      if (this.idsInCurrent.size >= this.perGeneration) {
        this.previous = this.current;
        this.current = new InMemoryTaskStore();
        this.idsInCurrent = new Set();
      }
      this.idsInCurrent.add(task.id);
    }
    await this.current.save(task, context);
  }

  async list(params: ListRequest, context: CallContext): Promise<ListResponse> {
    return await this.current.list(params, context);
  }
}
