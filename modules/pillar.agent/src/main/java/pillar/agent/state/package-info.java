/**
 * Who the agent's state directory belongs to: the storage node and the installation
 * ({@link pillar.agent.state.StateIdentity}), checked at every start ({@link pillar.agent.state.StateCheck})
 * before anything in the kernel is pruned or re-applied, the move of an older install's state directory
 * into this installation's own ({@link pillar.agent.state.StateDirMigration}), and the operator's recovery
 * when it is lost ({@link pillar.agent.state.StateRecovery}).
 */
package pillar.agent.state;
