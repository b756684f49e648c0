/**
 * One notebook's link to its kernel's `xjit` comm.
 *
 * Follows the notebook's session: a new kernel, a restart or a shutdown
 * clears the model; the comm is opened from this side when the kernel is
 * ready (it is closed at once if the extension is not loaded yet) and is
 * also accepted when the kernel opens it (`%load_ext xjit_kernel_ext` after
 * the panel attached). Only schema-valid messages reach the model; anything
 * else is dropped with a console warning.
 */
import type { ISessionContext } from '@jupyterlab/apputils';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { PanelModel } from './model';
import {
  checkKernelMessage,
  checkRequest,
  KernelMessage as XjitMessage,
  prepareValidators,
  Request,
  requestState,
  runDebug,
  selectFunction,
  TARGET
} from './protocol';

export class KernelLink {
  readonly model = new PanelModel();
  private _kernel: Kernel.IKernelConnection | null = null;
  private _comm: Kernel.IComm | null = null;
  private _stdinParent: KernelMessage.IHeader | null = null;
  private _restarting = false;
  private _disposed = false;

  constructor(readonly sessionContext: ISessionContext) {
    sessionContext.kernelChanged.connect(this._onKernelChanged, this);
    sessionContext.statusChanged.connect(this._onStatus, this);
    void sessionContext.ready.then(() => this._onKernelChanged());
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this.sessionContext.kernelChanged.disconnect(this._onKernelChanged, this);
    this.sessionContext.statusChanged.disconnect(this._onStatus, this);
    this._detach();
  }

  /** Send a request (validated first; an invalid one is a bug here). */
  send(req: Request): Kernel.IShellFuture | null {
    const err = checkRequest(req);
    if (err) {
      console.error(`xjit: not sending invalid request: ${err}`);
      return null;
    }
    if (!this._comm || this._comm.isDisposed) {
      return null;
    }
    return this._comm.send(req as any);
  }

  selectFunction(funId: number): void {
    this.model.select(funId);
    this.send(selectFunction(funId));
  }

  refresh(): void {
    this.send(requestState());
  }

  /** Ask the kernel to run %debug; pdb's prompts come back on this future. */
  runDebug(): void {
    const future = this.send(runDebug());
    if (!future) {
      return;
    }
    future.onStdin = msg => {
      if (msg.header.msg_type === 'input_request') {
        this._stdinParent = msg.header;
        const content = msg.content as KernelMessage.IInputRequestMsg['content'];
        this.model.debugPrompt(content.prompt || '(Pdb) ');
      }
    };
    future.onIOPub = msg => {
      if (msg.header.msg_type === 'stream') {
        this.model.debugOutput((msg.content as KernelMessage.IStreamMsg['content']).text);
      } else if (msg.header.msg_type === 'error') {
        const c = msg.content as KernelMessage.IErrorMsg['content'];
        this.model.debugOutput(`${c.ename}: ${c.evalue}\n`);
      }
    };
  }

  /** Answer pdb's pending prompt. */
  debugInput(text: string): void {
    const kernel = this._kernel;
    if (!kernel || !this._stdinParent) {
      return;
    }
    const prompt = this.model.debug.prompt || '';
    kernel.sendInputReply({ status: 'ok', value: text }, this._stdinParent as any);
    this._stdinParent = null;
    this.model.debugOutput(`${prompt}${text}\n`);
    this.model.debugPrompt(null);
  }

  private _currentKernel(): Kernel.IKernelConnection | null {
    const session = this.sessionContext.session;
    return session && session.kernel ? session.kernel : null;
  }

  private _onKernelChanged(): void {
    const kernel = this._currentKernel();
    if (kernel !== this._kernel) {
      this._attach(kernel);
    }
  }

  private _onStatus(_: ISessionContext, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      this._restarting = true;
      this._closeComm();
      this.model.reset('restarting');
    } else if (status === 'dead') {
      this._closeComm();
      this.model.reset('no-kernel');
    } else if (this._restarting && status === 'idle') {
      this._restarting = false;
      this._attach(this._currentKernel());
    }
  }

  private _attach(kernel: Kernel.IKernelConnection | null): void {
    if (this._disposed) {
      return;
    }
    this._detach();
    this._kernel = kernel;
    this.model.reset(kernel ? 'waiting' : 'no-kernel');
    if (!kernel) {
      return;
    }
    kernel.registerCommTarget(TARGET, this._onTarget);
    // If the extension is already loaded the kernel answers with hello+state;
    // otherwise it closes this comm and we wait for it to open one.
    const comm = kernel.createComm(TARGET);
    this._adopt(comm, null);
    comm.open(requestState() as any);
  }

  private _detach(): void {
    this._closeComm();
    if (this._kernel && !this._kernel.isDisposed) {
      this._kernel.removeCommTarget(TARGET, this._onTarget);
    }
    this._kernel = null;
  }

  private _closeComm(): void {
    const comm = this._comm;
    this._comm = null;
    this._stdinParent = null;
    if (comm && !comm.isDisposed) {
      comm.onMsg = () => undefined;
      comm.onClose = () => undefined;
      try {
        comm.close();
      } catch (e) {
        // the kernel is gone already
      }
    }
  }

  private _onTarget = (comm: Kernel.IComm, msg: KernelMessage.ICommOpenMsg): void => {
    this._adopt(comm, msg.content.data);
  };

  private _adopt(comm: Kernel.IComm, openData: unknown): void {
    if (this._comm && this._comm !== comm) {
      this._closeComm();
    }
    this._comm = comm;
    comm.onMsg = msg => this._receive(msg.content.data);
    comm.onClose = () => {
      if (this._comm === comm) {
        this._comm = null;
        this.model.setStatus('waiting');
      }
    };
    if (openData && Object.keys(openData as object).length) {
      this._receive(openData);
    }
  }

  private _receive(data: unknown): void {
    const err = checkKernelMessage(data);
    if (err) {
      console.warn(`xjit: ignoring message from the kernel: ${err}`);
      return;
    }
    const msg = data as XjitMessage;
    this.model.apply(msg);
    if (msg.type === 'state') {
      // connected: ready the other validators while nothing is asked of us
      setTimeout(prepareValidators, 0);
    }
    if (msg.type === 'batch' && this.model.selection) {
      // keep the shown jaxpr current when its function is retraced
      const sel = this.model.selection.fun_id;
      if (msg.events.some(e => e.kind === 'trace' && e.fun_id === sel)) {
        this.send(selectFunction(sel));
      }
    }
  }
}
